#!/bin/sh
# The lead's last GPU check of session 40 on one H200 (about 150 s; logs in $OUT): the test
# programs of the defaults that moved after the final pass (the attention backward's dependent
# launches and steps, the f32 skinny GEMM on wgmma, the rows' trials deleted), then the
# backward d128 8x16x4096 beside SDPA with the new defaults, the f32 skinny rows, and a jagged
# HSTU batch beside torch's dense form on the batch padded to the longest.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-verify40: skipped: no GPU here"; exit 0; }
log="$out/verify40.log"
start=$(date +%s) budget=${BUDGET_S:-170}
{
    device_head
    TEST_TIMEOUT=120 device_tests kernels/attention/attention_bwd_test kernels/gemv/gemv_test \
        kernels/rows/rows_gpu_test kernels/rows/norms_test kernels/gemv/mma_gpu_test
    echo "-- bwd d128 8x16x4096 beside SDPA $(el_s)"
    device_late bwd || timeout 40 build/cutec bench attention --bwd --headdim 128 --batch 8 --heads 16 --seqlen 4096 --iters 10 2>&1 | tail -n 3
    echo "-- f32 skinny 8192x8192 (64, 32, 16 vectors) $(el_s)"
    for n in 64 32 16; do device_gemv --dtype f32 --shape 8192x8192 --vectors $n | tail -n 1; done
    echo "-- jagged HSTU (AUTO: the Hopper kernel) beside torch's dense form padded to the longest $(el_s)"
    device_late jagged || timeout 40 build/cutec bench hstu --jagged 4000,1,8192,0,3000 --heads 4 --headdim 128 --iters 10 2>&1 |
        grep -E "^bf16|^# torch|WRONG|rror"
    device_end
} 2>&1 | tee "$log"
