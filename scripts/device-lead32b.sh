#!/bin/sh
# The lead's changes after session 32's final pass, on the GPU: the attention backward at head
# dim 96 through AUTO (the pass refused it; Hopper's since) checked against
# float64 and timed beside SDPA (prediction: the SM80 backward's rate, ~250-300 TFLOP/s, 60-70%
# of SDPA's); LayerNorm's backward at 1024x262144 with dw/db by a pass of its own, now the
# default (checked; 43% of the copy under CUTEC_ROWS_TRIAL=1 in the pass: expect the same).
# Under 60 s on an H200 after `make all tests`; log $OUT/lead32b.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead32b: skipped: no GPU here"; exit 0; }
log="$out/lead32b.log"
start=$(date +%s)
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    echo "== checked runs $(el_s)"
    for a in "--bwd --headdim 96 --seqlen 700 --heads 4 --kv-heads 2" "--bwd --headdim 96 --seqlen 500 --causal --dtype f16"; do
        timeout 30 build/cutec run attention --batch 2 $a --iters 3 2>&1 | tail -n 1
    done
    timeout 30 build/cutec run layernorm --backward --shape 37x262147 --iters 3 2>&1 | tail -n 1
    timeout 30 build/cutec run layernorm --backward --shape 64x262144 --dtype f32 --iters 3 2>&1 | tail -n 1
    echo "== bench: attention backward d96 8x16x4096 (SDPA beside), LayerNorm backward 1024x262144 $(el_s)"
    timeout 25 stdbuf -oL -eL build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 96 --iters 5 2>&1
    timeout 20 stdbuf -oL -eL build/cutec bench layernorm --backward --shape 1024x262144 --iters 10 2>&1
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
