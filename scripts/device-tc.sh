#!/bin/sh
# The tensor-core reference pass on a GPU machine: build; the cuBLAS reference against
# float64 for every dtype pair and the mma ceiling kernel's test; `cutec bench mma`; every
# dtype's GEMM checked element by element (odd sizes, a batch) and benchmarked against
# cuBLAS in one process.  Results go to $OUT (default build/device-out)/tc.log.
set -u
out=${OUT:-build/device-out}
sizes=${SIZES:-4096,8192}
iters=${ITERS:-10}
mkdir -p "$out"
log="$out/tc.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv 2>&1
    echo "== build"
    make -j16 all tests 2>&1 | grep -E "error|warning" | head -40
    echo "== tests"
    for t in cli/cublas_test kernels/mma_peak_test kernels/gemm/gemm_ref_test; do
        [ -x build/tests/$t ] && timeout 500 build/tests/$t 2>&1 | tail -6
    done
    echo "== bench mma (the mma.sync ceiling)"
    build/cutec bench mma --iters "$iters" 2>&1
    echo "== run gemm: every element of odd-sized, batched products against float64"
    for d in "f32" "f64" "bf16 --out-dtype f32" "f16" "tf32" "s8" "e4m3 --out-dtype bf16" "e5m2"; do
        # shellcheck disable=SC2086
        build/cutec run gemm --dtype $d --m 1021 --n 509 --k 263 --batch 3 --layout tnt 2>&1 | tail -2
    done
    echo "== bench gemm against cuBLAS (A and B K-major)"
    for d in "bf16" "f16" "bf16 --out-dtype f32" "tf32" "s8" "e4m3 --out-dtype bf16" "f64"; do
        # shellcheck disable=SC2086
        build/cutec bench gemm --dtype $d --layout tn --sizes "$sizes" --iters "$iters" 2>&1 | grep -v "^# [A-Zit]"
    done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -120 "$log"
