#!/bin/sh
# Issue 13, engineer s8: s8 x s8 -> s32 at 4096^3 past 80% of the mma.sync ceiling, and the
# step-5 kernel's cold compile.  Within 150 s on an H200 (steps past BUDGET_S seconds,
# default 125, are skipped and say so):
#   1. the persistent kernel storing C during the next tile's main loop (`--store overlap`)
#      on the GPU, every element against float64 (tails, alpha, beta, few and many k-tiles);
#      kernels/gemm/tensorop_test on the GPU (at most TEST_S seconds, default 35);
#   2. `cutec bench mma` (this run's ceilings); the cold compile (caches off, three runs) of
#      the step-5 bf16 kernel;
#   3. cuBLAS in the same process: s8 tn 4096^3 AUTO against the overlap in 4 stages (the
#      mid pass: 948 against 855 TOPS), bf16, f16 and tf32 tn 4096^3 AUTO, s8 8192^3 AUTO.
# Logs under $OUT (default build/device-out).
#   ITERS=5 sh scripts/device-s8.sh
. scripts/device-common.sh
log="$out/s8.log"
start=$(date +%s) budget=${BUDGET_S:-125}
iters=${ITERS:-5}
ov="--tile 256x128x64 --warps 4x2 --schedule persistent --store overlap"

b() { BENCH_TIMEOUT=${BENCH_S:-30} device_bench_gemm "$@"; }

# one verified run of the overlap kernel: its "verified ..." line
r()
{
    device_late run "$@" && return
    # shellcheck disable=SC2086
    echo "$*: $(timeout 30 build/cutec run gemm --backend cuda --variant tensorop_smem $ov --stages 3 "$@" 2>&1 |
        grep -E "verified|rror|wrong" | head -2 | tr '\n' ' ')"
}

# the cold compile of one kernel, three runs: the phases' CPU ms
cold()
{
    for i in 1 2 3; do
        device_late cold "$@" && return
        # shellcheck disable=SC2086
        echo "$(CUTEC_NO_CACHE=1 timeout 20 build/cutec compile gemm --arch sm_90a --emit time "$@" 2>&1 |
            grep -E "^(emit|NVRTC|ptxas)|own split" | tr -s ' ' | tr '\n' ';')"
    done
}

{
    device_head
    echo "== build (a no-op after make all tests)"
    make -j16 build/cutec build/tests/kernels/gemm/tensorop_test 2>&1 | grep -E "error|warning" | head -20
    echo "== the overlap kernel on the GPU, every element against float64"
    r --dtype s8 --layout tn --m 2049 --n 1030 --k 777 --alpha 3 --beta -2
    r --dtype s8 --layout tn --m 3605 --n 1820 --k 200
    r --dtype s8 --layout nt --m 1030 --n 2049 --k 263 --beta 1
    echo "== tests on the GPU (at most ${TEST_S:-35} s)"
    TEST_TIMEOUT=${TEST_S:-35} device_tests kernels/gemm/tensorop_test
    echo "== $(($(date +%s) - start)) s: bench mma (this run's ceilings)"
    device_late bench mma || timeout 20 build/cutec bench mma --dtypes s8,bf16 --iters 3 2>&1 | tail -n 4
    echo "== $(($(date +%s) - start)) s: cold compile of step 5, CPU ms (CUTEC_NO_CACHE=1, NVRTC --no-cache)"
    cold --dtype bf16 --variant tensorop_smem
    echo "== s8 tn 4096^3: AUTO (128x128x128, two blocks an SM) against the overlap in 4 stages"
    b --dtype s8 --layout tn --sizes 4096
    # shellcheck disable=SC2086
    b --dtype s8 --layout tn --sizes 4096 $ov --stages 4
    echo "== issue 13's other rows at 4096^3 (AUTO): bf16, f16, tf32; then s8 8192^3"
    b --dtype bf16 --layout tn --sizes 4096
    b --dtype f16 --layout tn --sizes 4096
    b --dtype tf32 --layout tn --sizes 4096
    b --dtype s8 --layout tn --sizes 8192
    echo "== clocks after: $(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>&1)"
    echo "== done in $(($(date +%s) - start)) s"
} 2>&1 | stdbuf -oL -eL tee "$log"
