#!/bin/sh
# The GEMV pass of branch gemv4 on a GPU machine (issue 17), under 150 s on an H200: the
# instruction rows' GPU test first (prmt with a register selector, dp4a, prefetch.global.L2
# against the interpreter); NVFP4 (seed 001's (M,K,L), the byte decode) and bf16 GEMV beside
# a device copy of the same bytes in the same process; torch.mv / torch.mm on the same
# shapes; the skinny products as GEMVs with 1..128 vectors (bf16) beside the copy; the odd
# shapes through cutec_gemm; the Hopper GEMM's small-M tiles against cuBLAS in one process;
# f32 with 1..64 vectors; NVFP4 with the L2 prefetch (off by default) last.  Results in $OUT
# (default build/device-out); the log's tail is printed.  Past BUDGET_S (135) the remaining
# steps print "skipped".  (The mid pass of session 28: a bench of three shapes needs about
# 30 s, 20 cut NVFP4's third.)
. scripts/device-common.sh
log="$out/gemv4.log"
start=$(date +%s) budget=${BUDGET_S:-135}
R="stdbuf -oL -eL"
{
    device_begin
    TEST_TIMEOUT=30 device_tests interp/inst_gpu_test
    echo "== bench gemv nvfp4 (seed 001's (M,K,L); GB/s of what it must read)"
    device_gemv --dtype nvfp4
    device_gemv_bf16_torch 40
    echo "== odd shapes through cutec_gemm (AUTO: the GEMV kernels)"
    for d in bf16 f32; do for s in "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
        device_late "$d $s" && continue
        echo "$d $s: $($R timeout 15 build/cutec run gemm --dtype $d --out-dtype $d --layout tn $s --iters 20 2>&1 | tail -n 1)"
    done; done
    echo "== the Hopper GEMM's small-M tiles against cuBLAS (C = A B^T, A the tokens: M x 8192)"
    device_late hopper || $R timeout 40 build/cutec bench gemm --dtype bf16 --layout tn --variants hopper \
        --sizes 32x8192x8192,64x8192x8192,128x8192x8192 --tile 64x64x64,128x64x64 --iters 20 2>&1
    for n in 1 8 16 64; do device_gemv --dtype f32 --shape 8192x8192 --vectors $n | tail -n 1; done
    echo "== NVFP4 with the L2 prefetch of the next k-tile"
    device_gemv --dtype nvfp4 --l2-prefetch 1 | tail -n 3
    device_gemv_usage "nvfp4" "bf16" "bf16 --vectors 64 --splits 2"
    device_end
} >"$log" 2>&1
tail -n 100 "$log"
