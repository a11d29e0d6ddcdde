#!/bin/sh
# The skinny GEMM pass of branch skinny on a GPU machine (issue 17): the tensor-core GEMV
# (src/kernels/gemv/mma.c: f16/bf16, and f32 as 3xTF32) tested at real sizes on the GPU
# first; then the issue's skinny shapes through cutec_gemm (`cutec run gemm`, AUTO routing:
# M = 1, 8, 16, 32, 64, 128 at N = K = 8192, 4097x3x8191, 3x5x100000, bf16 and f32); the
# same products as GEMVs with vectors beside a device copy of the same bytes in the same
# process (`cutec bench gemv --vectors N`; 8 vectors also without the tensor cores); forced
# splits and the atomic reduction at M = 64; torch.mm on the same shapes in the same
# session; the kernels' registers.  Results in $OUT (default build/device-out); the log's
# tail is printed.  About 100 s on an H200.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-skinny: skipped: no GPU here"; exit 0; }
log="$out/skinny.log"
{
    device_head
    echo "== build"
    make -j16 all build/tests/kernels/gemv/mma_gpu_test 2>&1 | grep -E "error|warning" | head -40
    TEST_TIMEOUT=40 device_tests kernels/gemv/mma_gpu_test
    echo "== skinny GEMM through cutec_gemm (tn; AUTO: N or M <= 8 the GEMV kernels, 9-128 of f16/bf16 the tensor cores)"
    for d in bf16 f32; do
        for s in "--m 1 --n 8192 --k 8192" "--m 8 --n 8192 --k 8192" "--m 16 --n 8192 --k 8192" \
                 "--m 32 --n 8192 --k 8192" "--m 64 --n 8192 --k 8192" "--m 128 --n 8192 --k 8192" \
                 "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
            [ $d = f32 ] && case "$s" in *"m 32 "*|*"m 128 "*) continue;; esac
            echo "$d $s: $(timeout 20 build/cutec run gemm --dtype $d --out-dtype $d --layout tn $s --iters 20 2>&1 | tail -n 1)"
        done
    done
    echo "== the same as GEMVs with vectors, beside a device copy (GB/s of A + x + y; copy: those bytes D2D)"
    for n in 1 8 16 32 64 128; do
        timeout 20 build/cutec bench gemv --dtype bf16 --shape 8192x8192 --vectors $n --iters 20 2>&1 | tail -n 1
    done
    for n in 8 16 64; do
        timeout 20 build/cutec bench gemv --dtype f32 --shape 8192x8192 --vectors $n --iters 20 2>&1 | tail -n 1
    done
    echo "== 8 vectors without the tensor cores (--mma-from 9: the GEMV rows kernel, as before)"
    for d in bf16 f32; do
        timeout 20 build/cutec bench gemv --dtype $d --shape 8192x8192 --vectors 8 --mma-from 9 --iters 20 2>&1 | tail -n 1
    done
    timeout 20 build/cutec bench gemv --dtype bf16 --shape 4096x16384 --vectors 64 --iters 20 2>&1 | tail -n 1
    timeout 20 build/cutec bench gemv --dtype bf16 --shape 16384x4096 --vectors 64 --iters 20 2>&1 | tail -n 1
    echo "== M = 64: forced splits (1, 2, 4, 8) and the atomic reduction"
    for sp in 1 2 4 8; do
        timeout 20 build/cutec bench gemv --dtype bf16 --shape 8192x8192 --vectors 64 --splits $sp --iters 20 2>&1 | tail -n 1
    done
    timeout 20 build/cutec bench gemv --dtype bf16 --shape 8192x8192 --vectors 64 --reduction atomic --iters 20 2>&1 | tail -n 1
    echo "== torch.mv / torch.mm, same session"
    timeout 60 python3 bench/torch_gemv.py 2>&1
    echo "== registers and spills (ptxas, sm_90a)"
    for a in "bf16 16" "bf16 64" "bf16 128" "f32 16" "f32 64"; do
        set -- $a
        echo "$1 --vectors $2: $(build/cutec compile gemv --dtype $1 --vectors $2 --splits 2 --arch sm_90a --emit usage 2>&1 | grep -A2 mma_kernel | grep -E 'registers|spill' | tr '\n' ' ')"
    done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
