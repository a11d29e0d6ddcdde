#!/bin/sh
# Engineer s9 (session 29): issue 18's SM80 attention forward (350 TFLOP/s at d128 8x16x4096),
# issue 13's s8 at 4096^3 (80% of the mma.sync ceiling) and the step-5 kernel's cold compile.
# Within 150 s on an H200; each step under its own timeout and started only while the run is
# inside its budget (BUDGET_S, default 142; a skipped step says so); output line-buffered:
#   1. the SM80 attention against float64 on the GPU at odd sizes (32-key softmax steps, K
#      and V in two stages, causal, GQA, d64/d128); kernels/gemm/tensorop_test (TEST_S s);
#   2. `cutec bench attention --variant sm80` d128 8x16x4096, causal and not, SDPA beside:
#      the default, 32-key steps (--block-n 32), two K/V stages (--kv-stages 2);
#   3. the step-5 kernel's cold compile (caches off, two runs; the mid pass also measured
#      ptxas's fast-compile mode: 9-12% slower kernels, dropped);
#   4. s8 tn 4096^3 against cuBLAS: AUTO (128x128x128, 3 stages, two blocks an SM) and the
#      candidate tiles; bf16 tn 4096^3 AUTO.
# Logs under $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/s9.log"
t0=$(date +%s)
budget=${BUDGET_S:-142}
iters=${ITERS:-5}
# a GEMM bench's rows (cuBLAS and ours), NVRTC given the options $nvopt
nvopt=
gemm() {
    t=$1 && shift
    device_step "$t" env CUTEC_NVRTC_OPTIONS="$nvopt" build/cutec bench gemm --variants tensorop_smem --layout tn \
        --iters "$iters" "$@" | grep -E "^ *[0-9]|rror|refus|^=="
}
# the cold compile of the step-5 kernel (bf16) with $nvopt, two runs: each phase's CPU ms
cold() {
    if [ $(($(date +%s) - t0 + 10)) -gt "$budget" ]; then echo "== skipped (time): cold [$nvopt]"; return; fi
    for _ in 1 2; do
        echo "cold [$nvopt]: $(CUTEC_NVRTC_OPTIONS="$nvopt" CUTEC_NO_CACHE=1 timeout 20 build/cutec compile gemm \
            --arch sm_90a --emit time --dtype bf16 --variant tensorop_smem 2>&1 |
            grep -E "^(emit|NVRTC|ptxas)|own split" | tr -s ' ' | tr '\n' ';')"
    done
}
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 build/cutec build/tests/kernels/gemm/tensorop_test 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. the SM80 attention on the GPU against float64 (0 wrong)"
    device_step 10 build/cutec run attention --variant sm80 --block-n 32 --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal
    device_step 10 build/cutec run attention --variant sm80 --kv-stages 2 --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16
    device_step 10 build/cutec run attention --variant sm80 --kv-stages 2 --block-n 32 --batch 2 --heads 4 --kv-heads 2 --seqlen 1500 --headdim 128
    device_stamp "tensorop_test on the GPU (at most ${TEST_S:-12} s)"
    TEST_TIMEOUT=${TEST_S:-12} device_tests kernels/gemm/tensorop_test
    echo "== 2. SM80 attention d128 8x16x4096 (SDPA beside): the default (64-key steps, one stage), 32-key steps,"
    echo "==    K and V in two stages (the mid pass: 305.7 with the branch-free K issue, 297.4, 308.2)"
    for o in "" "--block-n 32" "--kv-stages 2"; do
        # shellcheck disable=SC2086
        device_step 24 build/cutec bench attention --variant sm80 $o --batch 8 --heads 16 --seqlen 4096 --headdim 128 \
            --iters "$iters"
    done
    device_stamp "3. cold compile of step 5 (bf16), CPU ms"
    nvopt= && cold
    echo "== 4. s8 tn 4096^3: AUTO and two candidate tiles; bf16 4096^3 AUTO"
    gemm 12 --dtype s8 --sizes 4096
    gemm 12 --dtype s8 --sizes 4096 --tile 256x128x128 --warps 4x2 --stages 3
    gemm 15 --dtype bf16 --sizes 4096
    gemm 12 --dtype s8 --sizes 4096 --tile 128x256x128 --warps 2x4 --stages 3
    device_stamp "done; clocks after: $(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tr '\n' ' ')"
} >"$log" 2>&1
tail -n 80 "$log"
