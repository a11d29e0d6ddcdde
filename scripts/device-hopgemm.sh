#!/bin/sh
# The Hopper GEMM pass (issue 14 item 7): build, its tests on the GPU, odd sizes through
# `cutec run gemm --variant hopper` (every element against float64), the Hopper kernel against
# the SM80 tensor-core kernel and cuBLAS in one process on the same gaussian inputs, and its
# registers/spills/SASS.  Logs go to $OUT (default build/device-out) and $OUT/hop.tgz.
#   SIZES=2048,4096,8192 ITERS=10 sh scripts/device-hopgemm.sh
. scripts/device-common.sh
sizes=${SIZES:-2048,4096,8192}
log="$out/hop.log"
{
    device_begin
    device_tests kernels/gemm/hopper_test kernels/gemm/lib_test
    echo "== run gemm --variant hopper: odd sizes, every element against float64"
    for d in "bf16 --out-dtype f32 --layout tnt" "f16 --layout tnt" "bf16 --layout nnt" "bf16 --layout tt"; do
        # shellcheck disable=SC2086
        build/cutec run gemm --variant hopper --dtype $d --m 1021 --n 512 --k 264 2>&1 | tail -n 2
    done
    build/cutec run gemm --dtype bf16 --m 4096 --n 4096 --k 4096 --layout tn 2>&1 | tail -n 3
    for d in bf16 f16; do
        echo "== bench gemm $d tn (K-major A and B): hopper, tensorop_smem, cuBLAS"
        build/cutec bench gemm --dtype $d --layout tn --sizes $sizes --variants hopper,tensorop_smem --iters $iters 2>&1
    done
    echo "== bench gemm bf16 tnt (row-major C) and bf16 -> f32: hopper, cuBLAS"
    build/cutec bench gemm --dtype bf16 --layout tnt --sizes 4096,8192 --variants hopper --iters $iters 2>&1 | grep -E "^[0-9]"
    build/cutec bench gemm --dtype bf16 --out-dtype f32 --layout tn --sizes 4096,8192 --variants hopper --iters $iters 2>&1 | grep -E "^[0-9]"
    echo "== bench gemm bf16 nt (M-major A, N-major B: 64-row TMA boxes, transposed wgmma operands)"
    build/cutec bench gemm --dtype bf16 --layout nt --sizes 4096,8192 --variants hopper,tensorop_smem --iters $iters 2>&1 | grep -E "^[0-9]"
    echo "== registers, spills and SASS of the Hopper kernel"
    CUTEC_ARCH=sm_90a build/cutec compile gemm --dtype bf16 --variant hopper --layout tn --emit cuda > "$out/k.cu" 2>/dev/null
    nvcc -arch=sm_90a -cubin -Xptxas -v "$out/k.cu" -o "$out/k.cubin" 2>&1 | grep -E "registers|spill|serial"
    cuobjdump -sass "$out/k.cubin" | grep -oE "(HGMMA|UTMALDG|SYNCS|WARPGROUP|USETMAXREG|STG|LDG|BAR)[.A-Z0-9_x]*" | sort | uniq -c
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tar czf "$out/hop.tgz" -C "$out" $(cd "$out" && ls *.log) 2>/dev/null
tail -n 80 "$log"
