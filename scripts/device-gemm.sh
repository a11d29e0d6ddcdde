#!/bin/sh
# The GEMM pass on a GPU machine: build, the GEMM and cuBLAS tests, the SGEMM/DGEMM
# benchmark against cuBLAS in one process, and the SASS summary of each variant.
# Results go to $OUT (default build/device-out).
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-gemm: skipped: no GPU here"; exit 0; }
log="$out/gemm.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    echo "== build"
    make -j16 all tests 2>&1 | grep -E "error|warning" | head -40
    echo "== tests"
    for t in backend/cuda_c_gpu_test atom/tiled_copy_test atom/atom_swap_test tensor/smem_test tensor/tensor_test cli/cublas_test kernels/gemm/lib_test kernels/gemm/gemm_test; do
        [ -x build/tests/$t ] && timeout 500 build/tests/$t 2>&1 | tail -8
    done
    echo "== bench gemm f32 (nt: every operand column-major as (M,K), (N,K), (M,N))"
    build/cutec bench gemm --dtype f32 --sizes ${SIZES:-4096,8192} --iters ${ITERS:-10} 2>&1
    for ix in 32 64; do
        echo "== bench gemm f32, every variant with $ix-bit index arithmetic (the library's choice per variant is measured)"
        build/cutec bench gemm --dtype f32 --index $ix --sizes ${SIZES:-4096,8192} --iters ${ITERS:-10} 2>&1 | grep -v "^# [A-Zd]"
    done
    echo "== bench gemm f32 tn (A and B K-major)"
    build/cutec bench gemm --dtype f32 --layout tn --sizes ${SIZES:-4096,8192} --iters ${ITERS:-10} 2>&1 | grep -v "^#"
    echo "== bench gemm f64"
    build/cutec bench gemm --dtype f64 --sizes 4096 --iters 5 2>&1 | grep -v "^#"
    echo "== run gemm, every element checked"
    build/cutec run gemm --m 1021 --n 509 --k 263 --layout tnt 2>&1 | tail -2
    echo "== registers per variant"
    for v in registers shared pipelined; do for ix in 32 64; do
        build/cutec compile gemm --variant $v --index $ix --emit cuda > /tmp/g_$v$ix.cu 2>&1
        nvcc -arch=sm_90a -cubin -Xptxas -v /tmp/g_$v$ix.cu -o /tmp/g_$v$ix.cubin 2>&1 | grep -E "registers|spill" | tr '\n' ' '
        echo " <- $v, $ix-bit indices"
    done; done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -80 "$log"
