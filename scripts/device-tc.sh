#!/bin/sh
# The tensor-core pass on a GPU machine (issue 13): build, the atom and GEMM tests on the GPU,
# the mma.sync ceiling, the tensor-core GEMMs against cuBLAS in one process on the same
# gaussian inputs, and registers/spills of the library's kernels.  Results go to $OUT
# (default build/device-out); the log's tail is printed.
#   SIZES=4096,8192 ITERS=10 DTYPES="bf16 f16" sh scripts/device-tc.sh
#   DTYPES="bf16 f16 tf32 s8 e4m3 f64" for every dtype the library and cuBLAS share
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tc: skipped: no GPU here"; exit 0; }
log="$out/tc.log"
{
    device_begin
    # shellcheck disable=SC2086
    device_tests ${TESTS:-atom/atom_lane_test atom/ldsm_mma_test atom/atom_swap_test interp/inst_test kernels/gemm/tensorop_test kernels/mma_peak_test cli/cublas_test}
    echo "== bench mma (the mma.sync ceiling)"
    build/cutec bench mma --iters 5 2>&1
    echo "== run gemm: every element of odd-sized, batched products against float64"
    for d in "bf16 --out-dtype f32" "f16" "tf32" "s8" "e4m3 --out-dtype bf16" "f64"; do
        # shellcheck disable=SC2086
        build/cutec run gemm --dtype $d --m 1021 --n 509 --k 263 --batch 3 --layout tnt 2>&1 | tail -n 2
    done
    for d in ${DTYPES:-bf16 f16}; do
        echo "== bench gemm $d tn (K-major A and B)"
        build/cutec bench gemm --dtype $d --layout tn --sizes $sizes --iters $iters 2>&1
    done
    echo "== registers and spills (ptxas -v) of the library's kernels"
    for d in bf16 f16 s8 f64; do for v in tensorop tensorop_smem; do
        CUTEC_ARCH=sm_90a build/cutec compile gemm --dtype $d --variant $v --layout tn --emit cuda > "$out/k.cu" 2>/dev/null
        nvcc -arch=sm_90a -cubin -Xptxas -v "$out/k.cu" -o "$out/k.cubin" 2>&1 | grep -E "registers|spill" | tr '\n' ' '
        echo " <- $d $v"
        if [ "$d" = bf16 ] && [ "$v" = tensorop_smem ]; then
            cuobjdump -sass "$out/k.cubin" | grep -oE "(HMMA|LDSM|LDGSTS|LDS|STS|LDG|STG|BAR|DEPBAR)[.A-Z0-9_]*" | sort | uniq -c
        fi
    done; done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 120 "$log"
