#!/bin/sh
# The row-reduction pass of branch rows6 on a GPU machine (issue 16), under 150 s on an H200:
# the row kernels' GPU test (every op forward and backward at the three benchmark sizes,
# sampled rows against float64; each persistent grid of clusters against the clusters the
# driver says fit at once, printed as "# OP DIR SHAPE: N clusters ... M resident"), then
# `cutec bench` in bf16 at 16384x4096, 4096x32768 and 1024x262144, each beside a device copy
# of as many bytes and PyTorch eager (bench/torch_rows.py) in the same run: the norms'
# backwards and the forwards first (what rows6 changed), then softmax backward and
# cross-entropy forward+backward (also at 8192x131072), as the time allows.
# What changed on rows6:
#  - the norms' backward at 4096x32768 (four buffers a block) posts a row's cluster exchange
#    before the previous row's write pass and waits for it after (rows_pipelined);
#  - the norms' backward at 4096 and 32768 stages its block's weight once in shared memory;
#  - a block that walks several rows loads the next row's rstd / mean / label during this one.
# The norms' backward at 4096x32768 is timed again with the schedule before rows6
# (CUTEC_ROWS_SCHEDULE=rows5) in the same run.  Every command has a time limit and prints line by line (stdbuf): a limit
# that stops one loses nothing already printed.  Stops starting benchmarks after $BUDGET
# seconds (default 115).  Logs under $OUT.
#   BUDGET=115 ITERS=10 sh scripts/device-rows6.sh
. scripts/device-common.sh
log="$out/rows6.log"
start=$(date +%s)
budget=${BUDGET:-115}
BENCH_TIMEOUT=30
{
    device_head
    timeout 20 make -j16 build/cutec build/tests/kernels/rows/rows_gpu_test 2>&1 | grep -E "error|warning" | head -20
    echo "== tests on the GPU (compiles every row kernel: the benches below find them in the cache)"
    timeout 85 stdbuf -oL -eL build/tests/kernels/rows/rows_gpu_test >"$out/rows_gpu_test.log" 2>&1
    echo "rows_gpu_test (rc $?): $(tail -n 1 "$out/rows_gpu_test.log")"
    grep -E "^# .* resident" "$out/rows_gpu_test.log"
    grep -m 5 FAIL "$out/rows_gpu_test.log" | cut -c1-400
    bench_bf16 rmsnorm --backward
    echo "-- the same with the schedule before rows6 (CUTEC_ROWS_SCHEDULE=rows5; no torch)"
    CUTEC_ROWS_SCHEDULE=rows5 CUTEC_TORCH_ROWS=/dev/null bench_bf16 rmsnorm --backward --shape 4096x32768
    bench_bf16 layernorm --backward
    bench_bf16 rmsnorm
    bench_bf16 softmax
    bench_bf16 layernorm
    bench_bf16 cross-entropy --backward --shape 8192x131072
    bench_bf16 softmax --backward
    bench_bf16 cross-entropy --backward
    echo "== clocks after ($(($(date +%s) - start)) s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 120
