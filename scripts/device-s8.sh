#!/bin/sh
# Issue 13, engineer s8: s8 x s8 -> s32 at 4096^3 past 80% of the mma.sync ceiling, and the
# step-5 kernel's cold compile.  Within 150 s on an H200 (steps past BUDGET_S seconds,
# default 125, are skipped and say so):
#   1. the persistent kernel storing C during the next tile's main loop (`--store overlap`)
#      on the GPU, every element against float64 (tails, alpha, beta, few and many k-tiles);
#      kernels/gemm/tensorop_test on the GPU (at most TEST_S seconds, default 35);
#   2. `cutec bench mma` (this run's ceilings), then s8 tn at 4096^3 old against new, cuBLAS
#      in the same process: auto (the library's choice), the overlap tilings in 3 and 4
#      stages; bf16 tn 4096^3 auto (regression); bf16 and the s8 overlap kernel with ptxas's
#      --Ofast-compile=mid (CUTEC_NVRTC_OPTIONS: a third of ptxas's compile time, speed to
#      see); s8 8192^3 auto against the overlap; the persistent kernel without the overlap;
#   The cold compile (disk caches off, three runs each) of the step-5 bf16 kernel (ptxas -O3
#   and --Ofast-compile=mid) before the benchmarks, of the s8 overlap kernel after them.
# Logs under $OUT (default build/device-out).
#   ITERS=5 sh scripts/device-s8.sh
. scripts/device-common.sh
log="$out/s8.log"
start=$(date +%s) budget=${BUDGET_S:-125}
iters=${ITERS:-5}
ov="--tile 256x128x64 --warps 4x2 --schedule persistent --store overlap"
fast="--ptxas-options=--Ofast-compile=mid"

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
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
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
    echo "== $(($(date +%s) - start)) s: cold compile, CPU ms (CUTEC_NO_CACHE=1, NVRTC --no-cache)"
    echo "-- step 5 bf16"
    cold --dtype bf16 --variant tensorop_smem
    echo "-- step 5 bf16, ptxas --Ofast-compile=mid"
    export CUTEC_NVRTC_OPTIONS="$fast"
    cold --dtype bf16 --variant tensorop_smem
    echo "-- step 5 bf16, NVRTC --Ofast-compile=min"
    export CUTEC_NVRTC_OPTIONS="--Ofast-compile=min"
    cold --dtype bf16 --variant tensorop_smem
    unset CUTEC_NVRTC_OPTIONS
    echo "== s8 tn 4096^3: auto (old: 128x128x128, a block per tile) against the overlap (new)"
    b --dtype s8 --layout tn --sizes 4096
    # shellcheck disable=SC2086
    b --dtype s8 --layout tn --sizes 4096 $ov --stages 3
    # shellcheck disable=SC2086
    b --dtype s8 --layout tn --sizes 4096 $ov --stages 4
    echo "== bf16 tn 4096^3 auto (regression), then with ptxas --Ofast-compile=mid (a third of ptxas's time)"
    b --dtype bf16 --layout tn --sizes 4096
    export CUTEC_NVRTC_OPTIONS="$fast"
    b --dtype bf16 --layout tn --sizes 4096
    echo "== s8 tn 4096^3 overlap with ptxas --Ofast-compile=mid"
    # shellcheck disable=SC2086
    b --dtype s8 --layout tn --sizes 4096 $ov --stages 3
    echo "== bf16 tn 4096^3 with NVRTC's own --Ofast-compile=min (NVVM too: 0.24 s to a cubin here)"
    export CUTEC_NVRTC_OPTIONS="--Ofast-compile=min"
    b --dtype bf16 --layout tn --sizes 4096
    unset CUTEC_NVRTC_OPTIONS
    echo "== s8 tn 8192^3: auto against the overlap"
    b --dtype s8 --layout tn --sizes 8192
    # shellcheck disable=SC2086
    b --dtype s8 --layout tn --sizes 8192 $ov --stages 3
    echo "== s8 tn 4096^3 persistent 256x128x64 without the overlap (the control)"
    b --dtype s8 --layout tn --sizes 4096 --tile 256x128x64 --warps 4x2 --stages 3 --schedule persistent
    echo "== $(($(date +%s) - start)) s: cold compile of the s8 overlap kernel, CPU ms"
    # shellcheck disable=SC2086
    cold --dtype s8 --variant tensorop_smem $ov --stages 3
    echo "== clocks after: $(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>&1)"
    echo "== done in $(($(date +%s) - start)) s"
} 2>&1 | stdbuf -oL -eL tee "$log"
