#!/bin/sh
# The lead's final pass of session 39, after the suite (about 70 s on one H200; log
# $OUT/lead39d.log):
#  1. attnb39's 16-byte dQ store (the only form; timed once against the old store in the mid
#     pass) beside SDPA's backward, d128 8x16x4096 and 2x16x16384 not causal (issue 18: 110%);
#  2. row128 (the default since the second pass) at rows it was not timed at: LayerNorm bf16
#     16384x1024, 16384x2048, 65536x512 (several rows a 128-thread block) and 16384x4096 again,
#     the default against CUTEC_ROWS_TRIAL=no-row128 in turns, two rounds; the copy beside;
#  3. amax's edge form (the default since epi39) at 8192^3 in turns with the plain kernel.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead39d: skipped: no GPU here"; exit 0; }
log="$out/lead39d.log"
start=$(date +%s) budget=${BUDGET_S:-75}
{
    device_head
    echo "== 1. the backward beside SDPA's $(el_s)"
    for s in "--batch 8 --heads 16 --seqlen 4096" "--batch 2 --heads 16 --seqlen 16384"; do
        # shellcheck disable=SC2086
        device_late "bwd $s" || timeout 40 build/cutec bench attention --bwd --headdim 128 $s --iters 10 2>&1 | tail -n 2
    done
    echo "== 2. LayerNorm rows: the default (row128) against no-row128 $(el_s)"
    for round in 1 2; do
        for shape in 16384x1024 16384x2048 65536x512 16384x4096; do
            for t in 0 no-row128; do
                device_late "layernorm $shape $t" && continue
                printf '%s %s %s: ' "$round" "$shape" "$t"
                CUTEC_ROWS_TRIAL=$t timeout 10 build/cutec bench layernorm --dtype bf16 --shape $shape --iters 20 2>&1 | grep -E "^layernorm" | head -n 1
            done
        done
    done
    echo "== 3. amax (edge) at 8192^3 in turns $(el_s)"
    device_late "amax" || timeout 30 build/cutec bench gemm --dtype e4m3 --out-dtype bf16 --layout tn --variants hopper --scale tensor --amax --iters 20 --sizes 8192 --epilogue-cost 2>&1 | grep -E "^8192|^cost|rror|WRONG"
    device_end
} 2>&1 | tee "$log"
