#!/bin/sh
# The pipelined SGEMM pass on a GPU machine (issue 12): build, the GEMM tests on the GPU,
# verified runs of the pipelined f32 kernel (odd sizes, beta != 0, both C majors), the
# pipelined SGEMM and the bf16 step-5 GEMM (regression) against cuBLAS, and the FFMA
# register-bank conflicts of the SGEMM's main loop as compiled there.  Results go to $OUT
# (default build/device-out), the logs tarred; the log's tail is printed.
#   SIZES=4096,8192 ITERS=10 sh scripts/device-sgemm.sh
. scripts/device-common.sh
log="$out/sgemm.log"
{
    device_begin
    device_tests kernels/gemm/gemm_test
    echo "== run gemm f32 pipelined: every element against float64"
    for l in nt tn tnt; do
        build/cutec run gemm --variant pipelined --m 1021 --n 509 --k 263 --beta 0.5 --layout $l 2>&1 | tail -n 1
    done
    build/cutec run gemm --variant pipelined --m 2048 --n 2048 --k 2048 --beta 0 2>&1 | tail -n 1
    echo "== bench gemm f32 pipelined (the library's index width, 64 bits)"
    build/cutec bench gemm --dtype f32 --sizes "$sizes" --iters "$iters" --variants pipelined 2>&1
    echo "== bench gemm f32 pipelined, 32-bit index arithmetic (fewer conflicts, no spills now)"
    build/cutec bench gemm --dtype f32 --sizes "$sizes" --iters "$iters" --variants pipelined --index 32 2>&1
    echo "== bench gemm bf16 (the default kernel, step 5)"
    build/cutec bench gemm --dtype bf16 --sizes "$sizes" --iters "$iters" 2>&1
    echo "== the SGEMM's FFMAs: bank-conflicted (main loop and whole kernel), ptxas -v"
    for i in 64 32; do
        build/cutec compile gemm --variant pipelined --layout ntn --index $i --emit banks 2>&1 | tail -n 1
        build/cutec compile gemm --variant pipelined --layout ntn --index $i --emit usage 2>&1 | grep -E "Used|spill" | tr '\n' ' '
        echo " <- index $i"
    done
    build/cutec compile gemm --dtype bf16 --emit usage 2>&1 | grep -E "Used|spill" | tr '\n' ' '
    echo " <- bf16 step 5"
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tar -czf "$out/sgemm-logs.tar.gz" -C "$out" $(cd "$out" && ls *.log) 2>/dev/null
tail -n 60 "$log"
