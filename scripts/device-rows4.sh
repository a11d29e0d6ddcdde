#!/bin/sh
# The row-reduction pass of branch rows4 on a GPU machine (issue 16): build what it needs;
# the row kernels' GPU test (every op forward and backward at the three benchmark sizes,
# sampled rows against float64); `cutec bench` of softmax, RMSNorm, LayerNorm (forward and
# backward) and cross-entropy (forward+backward) in bf16 at 16384x4096, 4096x32768 and
# 1024x262144, and cross-entropy forward+backward at 8192x131072, each beside a device copy
# of as many bytes and PyTorch eager (bench/torch_rows.py) in the same run, the backwards
# first.
# What changed on rows4: a row split over a cluster stages each block's part of it in shared
# memory by bulk copies and walks it in chunks from there (no register spills: the cluster
# kernels that held their tile in registers spilled up to 224 bytes); blocks that keep dw/db
# walk several rows with the next row's copies in flight; 1024-thread tiles keep dw/db in
# shared memory.  Stops starting benchmarks after $BUDGET seconds (default 120: under 3 minutes in all).
# Logs under $OUT (default build/device-out).
#   BUDGET=120 ITERS=10 sh scripts/device-rows4.sh
. scripts/device-common.sh
log="$out/rows4.log"
start=$(date +%s)
budget=${BUDGET:-120}
{
    device_head
    echo "== build"
    make -j16 build/cutec build/tests/kernels/rows/rows_gpu_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=100 device_tests kernels/rows/rows_gpu_test
    # what rows4 changed first: the backwards, softmax's long rows, cross-entropy fused
    bench_bf16 rmsnorm --backward
    bench_bf16 layernorm --backward
    bench_bf16 softmax --backward
    bench_bf16 softmax
    bench_bf16 cross-entropy --backward --shape 8192x131072
    bench_bf16 cross-entropy --backward
    bench_bf16 layernorm
    bench_bf16 rmsnorm
    echo "== clocks after ($(($(date +%s) - start)) s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 120
