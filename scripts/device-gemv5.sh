#!/bin/sh
# The GEMV pass of branch gemv5 on a GPU machine (issue 17), under 150 s on an H200: the GPU
# tests of the rows it touched (bar.warp.sync in sync_gpu_test, the
# tensor-core form's mma_gpu_test); NVFP4 at odd sizes checked against float64 on the GPU
# (the pipelined k-tiles: one full k-tile and a tail, a partial warp, batches); NVFP4 on
# seed 001's three (M,K,L), the library's choice (the next k-tile's registers loaded before
# this one's products, or a k-tile at a time) and --tile-at-a-time 1, each beside a copy of the same
# bytes in the same process; the Hopper kernel's few-row tiles (cutec_gemm's AUTO route for
# M = 32..128) against cuBLAS; bf16 GEMV beside the copy; torch.mv / torch.mm; the skinny
# products as GEMVs with 1..128 vectors.  Results in
# $OUT (default build/device-out); the log's tail is printed.  Past BUDGET_S (100) the
# remaining steps print "skipped".
. scripts/device-common.sh
log="$out/gemv5.log"
start=$(date +%s) budget=${BUDGET_S:-100} GEMV_TIMEOUT=35
R="stdbuf -oL -eL"
{
    device_begin
    TEST_TIMEOUT=20 device_tests interp/sync_gpu_test kernels/gemv/mma_gpu_test
    echo "== NVFP4 on the GPU at odd sizes (checked against float64)"
    device_gemv_run --dtype nvfp4 --shape 261x4160 --batch 2
    device_gemv_run --dtype nvfp4 --shape 7168x1088
    device_gemv_run --dtype nvfp4 --shape 4096x4160 --batch 3
    device_gemv_run --dtype nvfp4 --shape 37x2080 --batch 3 --tile-at-a-time 1
    echo "== bench gemv nvfp4, the library's choice (the next k-tile's registers first at (4096,7168,8), a k-tile"
    echo "   at a time at the other two; seed 001's (M,K,L); GB/s of what it must read)"
    device_gemv --dtype nvfp4
    echo "== bench gemv nvfp4, a k-tile at a time forced"
    device_gemv --dtype nvfp4 --tile-at-a-time 1
    echo "== cutec_gemm AUTO's route for M = 32..128 (16-bit): the Hopper kernel's few-row tiles (its AUTO"
    echo "   table: 64x64 up to 64 rows, 128x64 past) against cuBLAS (C = A B^T, A the tokens: M x 8192)"
    device_late hopper || $R timeout 35 build/cutec bench gemm --dtype bf16 --layout tn --variants hopper \
        --sizes 64x8192x8192,128x8192x8192 --iters 20 2>&1
    device_gemv_bf16_torch 30
    device_late usage || device_gemv_usage "nvfp4" "nvfp4 --tile-at-a-time 1" "bf16"
    device_end
} >"$log" 2>&1
tail -n 100 "$log"
