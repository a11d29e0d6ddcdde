#!/bin/sh
# The row-reduction pass of branch rows3 on a GPU machine (issue 16): build; the row
# kernels' GPU test (every op forward and backward at the three benchmark sizes, sampled rows
# against float64); `cutec bench` of softmax, RMSNorm, LayerNorm (forward and backward) and
# cross-entropy (forward, forward+backward) in bf16 at 16384x4096, 4096x32768 and
# 1024x262144, each beside a device copy of as many bytes and PyTorch eager
# (bench/torch_rows.py) in the same run; then cross-entropy at 8192x131072.
# What changed on rows3: rows too long to stage in one block's shared memory (1024x262144;
# the backward's two inputs at 4096x32768; cross-entropy's 131072) are split over a
# thread-block cluster of up to 16 blocks, each holding its tile in registers, the partial
# statistics exchanged through distributed shared memory: each element read from HBM once
# (they were read twice, or three times with dw/db's own pass); the norms' dw/db of such
# rows stay in each block's registers over its rows.  LayerNorm's weight and bias are loaded
# after the reduction, so its tile is RMSNorm's (4 loads in flight a thread, not 2).
# Logs under $OUT (default build/device-out).  About 3 minutes on an H200.
#   OPS="softmax layernorm" ITERS=10 sh scripts/device-rows3.sh
. scripts/device-common.sh
log="$out/rows3.log"
{
    device_begin
    TEST_TIMEOUT=120 device_tests kernels/rows/rows_gpu_test
    for op in ${OPS:-softmax rmsnorm layernorm cross-entropy}; do
        for dir in "" "--backward"; do
            echo "== bench $op $dir (bf16)"
            # shellcheck disable=SC2086
            timeout 60 build/cutec bench $op $dir --dtype bf16 --iters "$iters" 2>&1
        done
    done
    echo "== bench cross-entropy at the issue's 8192x131072 (forward, forward+backward)"
    for dir in "" "--backward"; do
        # shellcheck disable=SC2086
        timeout 60 build/cutec bench cross-entropy $dir --dtype bf16 --shape 8192x131072 --iters "$iters" 2>&1
    done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 120
