#!/bin/sh
# The lead's second pass of session 38 (about 190 s on one H200 after `make all tests`; log
# $OUT/lead38b.log): the items within a few points of their marks, re-timed with the reference in
# the same process (status38's survey):
#  1. issue 13: the SM80 f16 and bf16 GEMMs at 4096^3 and 8192^3 (`--variants tensorop`, cuBLAS
#     beside) and the mma.sync ceiling right after (`cutec bench mma --dtypes bf16,f16`): 80% of
#     the ceiling asked (f16 4096^3 last read 79.0% in session 28);
#  2. issue 18: the Hopper forward d128 causal 8x16x4096 (620 asked; 604.5 last) and d256 non-causal
#     2x16x16384 (700 asked; 686.2 last), SDPA beside;
#  3. issue 15: f16 on the Hopper GEMM at 8192^3 and the two LLM shapes under 100% at the first
#     pass (8192x4096x14336 98.7, 8192x6144x4096 99.4; 8192^3 91.8 after the clock fell), cuBLAS
#     beside, twice;
#  4. issue 16: RMSNorm's backward at 16384x4096 (3,274.7 GB/s at the first pass, 3.3 TB/s asked)
#     and the forwards at 1024x262144, twice each, the copy beside.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead38b: skipped: no GPU here"; exit 0; }
log="$out/lead38b.log"
start=$(date +%s) budget=${BUDGET_S:-200} iters=20
{
    device_head
    echo "== 1. SM80 f16/bf16 GEMMs and the mma.sync ceiling $(el_s)"
    for d in f16 bf16; do
        device_late "sm80 $d" || timeout 40 build/cutec bench gemm --dtype $d --layout tn --variants tensorop --iters 20 \
            --sizes 4096,8192 2>&1 | grep -E "^(4096|8192) |SM clock"
    done
    device_late "bench mma" || timeout 30 build/cutec bench mma --dtypes bf16,f16 2>&1 | tail -n 4
    echo "== 2. attention forward: d128 causal 8x16x4096, d256 2x16x16384 $(el_s)"
    device_late "causal" || timeout 60 build/cutec bench attention --headdim 128 --batch 8 --heads 16 --seqlen 4096 --causal --iters 10 2>&1 | tail -n 3
    device_late "d256" || timeout 60 build/cutec bench attention --headdim 256 --batch 2 --heads 16 --seqlen 16384 --iters 10 2>&1 | tail -n 3
    echo "== 3. f16 Hopper GEMM, twice $(el_s)"
    for round in 1 2; do
        device_late "f16 $round" || timeout 40 build/cutec bench gemm --dtype f16 --layout tn --variants hopper --iters 20 \
            --sizes 8192,8192x4096x14336,8192x6144x4096 2>&1 | grep -E "^8192 |SM clock"
    done
    echo "== 4. rows $(el_s)"
    for round in 1 2; do
        for r in "rmsnorm --shape 16384x4096 --backward" "rmsnorm --shape 1024x262144" "layernorm --shape 1024x262144" \
                 "layernorm --shape 4096x32768" "layernorm --shape 16384x4096"; do
            device_late "$r" && continue
            # shellcheck disable=SC2086
            CUTEC_TORCH_ROWS=/dev/null timeout 30 build/cutec bench $r --dtype bf16 --iters 50 2>&1 | tail -n 1
        done
    done
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
