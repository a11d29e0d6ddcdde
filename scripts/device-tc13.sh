#!/bin/sh
# Issue 13, engineer tc13: the SM80 tensor-core GEMM's persistent schedule (one block an SM
# walking tiles, the next tile's first k-tiles loading while this one's epilogue runs;
# `--schedule persistent`) against the library's block per tile, both in one process with
# cuBLAS.  Within 150 s on an H200, highest value first (steps past BUDGET_S seconds,
# default 120, are skipped; the tests get what is left of TOTAL_S, default 145):
#   1. `cutec run gemm --schedule persistent` on the GPU, every element against float64:
#      bf16, s8, f16 (batched, N-major B), tf32, bf16 -> f32 row-major C, with tails, beta,
#      and more tiles than SMs (blocks walking two tiles);
#   2. `cutec bench gemm --variants tensorop_smem --schedule auto,persistent` (auto: the
#      library's choice, a block per tile; s8 at 4096 its by_size row 128x128x128): bf16
#      and s8 tn at 4096 and 8192, then f16 and tf32 at 4096, then persistent rasters;
#   3. `cutec bench mma` (the mma.sync ceilings of this run);
#   4. ptxas's registers and spills of the persistent kernels; the cold compile of step 5;
#   5. kernels/gemm/tensorop_test on the GPU (the persistent cases at 7x their interpreter
#      sizes among them) in the time left.
# Logs under $OUT (default build/device-out), tarred as tc13.tgz.
#   ITERS=10 sh scripts/device-tc13.sh
. scripts/device-common.sh
log="$out/tc13.log"
start=$(date +%s) budget=${BUDGET_S:-120}
late() { device_late "$@"; }
b() { BENCH_TIMEOUT=40 device_bench_gemm "$@"; }

# one verified run of the persistent kernel: "dtype layout MxNxK ...: verified ..."
r()
{
    late run "$@" && return
    echo "$*: $(timeout 30 build/cutec run gemm --variant tensorop_smem --schedule persistent "$@" 2>&1 |
        grep -E "verified|rror|wrong" | head -2 | tr '\n' ' ')"
}

{
    device_head
    echo "== build"
    make -j16 build/cutec build/tests/kernels/gemm/tensorop_test 2>&1 | grep -E "error|warning" | head -20
    echo "== the persistent kernel on the GPU, every element against float64"
    r --dtype bf16 --layout tn --m 1021 --n 509 --k 263 --beta 0.5
    r --dtype bf16 --layout tn --m 4000 --n 1100 --k 100 --beta -0.5
    r --dtype s8 --layout tn --m 2100 --n 2100 --k 200 --alpha 3 --beta -2
    r --dtype f16 --layout nn --m 1021 --n 1000 --k 300 --batch 2 --beta 0.25
    r --dtype tf32 --layout tn --m 2000 --n 1500 --k 300
    r --dtype bf16 --out-dtype f32 --layout ttt --m 3000 --n 2000 --k 200 --beta 1
    echo "== bench gemm: a block per tile (auto) against persistent, cuBLAS in the same process"
    b --dtype bf16 --layout tn --sizes 4096,8192 --schedule auto,persistent
    b --dtype s8 --layout tn --sizes 4096,8192 --schedule auto,persistent
    b --dtype f16 --layout tn --sizes 4096 --schedule auto,persistent
    b --dtype tf32 --layout tn --sizes 4096 --schedule auto,persistent
    echo "== persistent against auto (the library's choice) in each bench above, rate and change"
    awk '/^-- /{d=$0} $2 ~ /-auto$/ {a[d" "$1]=$4}
         $2 ~ /-persistent$/ && a[d" "$1] {printf "%s at %s: %s against %s (%+.1f%%)\n", d, $1, $4, a[d" "$1], 100 * ($4 / a[d" "$1] - 1)}' "$log"
    echo "== persistent rasters at 4096 (the default is 8)"
    b --dtype s8 --layout tn --sizes 4096 --schedule persistent --raster 4,16
    b --dtype bf16 --layout tn --sizes 4096 --schedule persistent --raster 4,16
    echo "== bench mma"
    late bench mma || timeout 30 build/cutec bench mma --dtypes bf16,s8 --iters 3 2>&1 | tail -n 6
    echo "== registers and spills (ptxas, sm_90a), persistent"
    for d in bf16 f16 s8 tf32; do
        echo "$d: $(timeout 20 build/cutec compile gemm --dtype $d --variant tensorop_smem --layout tn --arch sm_90a \
            --schedule persistent --emit usage 2>&1 | grep -E 'Used|spill' | tr '\n' ' ')"
    done
    echo "== cold compile of step 5 (bf16, a block per tile; three runs)"
    for i in 1 2 3; do
        CUTEC_NO_CACHE=1 timeout 20 build/cutec compile gemm --dtype bf16 --variant tensorop_smem --arch sm_90a \
            --emit time 2>&1 | grep -E "NVRTC to cubin|ptxas \(" | tr '\n' ' '
        echo
    done
    echo "== clocks after: $(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>&1)"
    # what is left of TOTAL_S seconds: the tests on the GPU (they say how far they got)
    left=$((${TOTAL_S:-145} - ($(date +%s) - start)))
    [ $left -gt 10 ] && TEST_TIMEOUT=$left device_tests kernels/gemm/tensorop_test
    echo "== done in $(($(date +%s) - start)) s"
} 2>&1 | tee "$log" | tail -n "${TAIL:-120}"
tar czf /tmp/tc13.tgz -C "$out" . && mv /tmp/tc13.tgz "$out/"
