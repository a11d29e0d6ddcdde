#!/bin/sh
# The packed-fragment GEMM pass on a GPU machine (issue 13, engineer "pack"): build; on the
# GPU the GEMM, packed-register, paired f16x2/bf16x2 arithmetic, instruction-row and
# ldmatrix/mma tests; the mma.sync ceiling; the library's tensor-core GEMMs against cuBLAS
# at 4096^3 and 8192^3 (one process, the same gaussian inputs) for bf16, f16, tf32, s8, e4m3
# and f64; a small bf16 tiling sweep; ptxas's register and spill report of each library
# kernel.  Under 4 minutes on an H200.  Results in $OUT (default build/device-out), the
# log's tail printed.
#   SIZES=4096,8192 ITERS=10 DTYPES="bf16 f16" TILINGS="256x128x64:3:4x2" sh scripts/device-pack.sh
. scripts/device-common.sh
log="$out/pack.log"
{
    device_begin
    # shellcheck disable=SC2086
    TEST_TIMEOUT=120
    device_tests ${TESTS:-kernels/gemm/gemm_test kernels/gemm/tensorop_test kernels/gemm/lib_test kernels/gemm/broken_test tensor/packed_regs_test tensor/half2_test interp/inst_gpu_test atom/ldsm_mma_test kernels/gemm/spill_test}
    echo "== bench mma (the mma.sync ceiling; e4m3 on sm_90 is emulated by ptxas: see RESULTS)"
    timeout 60 build/cutec bench mma --iters 5 2>&1
    for d in ${DTYPES:-bf16 f16 tf32 s8 e4m3 f64}; do
        o=""; [ "$d" = e4m3 ] && o="--out-dtype bf16" # cuBLASLt has no e4m3 x e4m3 -> f32
        echo "== bench gemm $d $o tn (K-major A and B) against cuBLAS"
        # shellcheck disable=SC2086
        timeout 60 build/cutec bench gemm --dtype $d $o --layout tn --sizes $sizes --iters $iters 2>&1
    done
    for t in ${TILINGS:-256x128x64:3:4x2 128x256x64:3:2x4 256x128x32:4:4x2}; do
        tile=${t%%:*}; rest=${t#*:}; st=${rest%%:*}; w=${rest#*:}
        echo "== bf16 tn 8192^3, tiling $t"
        timeout 30 build/cutec bench gemm --dtype bf16 --layout tn --sizes 8192 --iters $iters \
            --variants tensorop_smem --tile $tile --stages $st --warps $w 2>&1 | grep -E "^ *[0-9]+ +(cublas|tensorop)"
    done
    echo "== registers and spills (ptxas through NVRTC) of the library's kernels, sm_90a"
    for l in tn; do for d in bf16 f16 tf32 s8 e4m3 f64; do
        printf "%s %-5s " $l $d
        build/cutec compile gemm --dtype $d --layout $l --arch sm_90a --emit usage 2>/dev/null |
            grep -E "Used|spill" | sed 's/ptxas[ a-z]*[:.]  *//' | tr '\n' ' '
        echo
    done; done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 150 "$log"
