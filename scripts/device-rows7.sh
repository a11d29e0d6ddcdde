#!/bin/sh
# The row-reduction pass of branch rows7 on a GPU machine (issue 16), under 150 s on an H200:
# the row kernels' GPU test at 1024x262144 for 25 s (every op forward and backward, sampled
# rows against float64, as far as it gets: a cold compile cache took it past 40 s in the mid
# pass; each bench checks its own rows too: "WRONG"), then `cutec bench` in
# bf16, each beside a device copy of as many bytes and PyTorch eager (bench/torch_rows.py)
# in the same run, the schedule before rows7 (CUTEC_ROWS_SCHEDULE=rows6; no torch) right
# after each row rows7 changed: first what the mid pass of session 29 did not reach
# (LayerNorm at 4096 and 32768, softmax backward at 32768, softmax, log-softmax), then the
# rows it measured again.  What changed on rows7:
#  - a cluster's forward blocks stage 64 KB parts of the row, not 32 KB: clusters of 8 at
#    1024x262144 (was 16), three blocks an SM holding 192 KB in flight (was 96 KB); softmax
#    backward at 4096x32768 clusters of 2 (was 4); cross-entropy with dlogits at 8192x131072
#    clusters of 4 (was 8);
#  - cross-entropy's backward at 16384x4096 asks for three blocks an SM (80 registers; it
#    took 106: two blocks);
#  - LayerNorm's forward over a row one block holds (16384x4096, 4096x32768) takes two
#    sums, not Chan's merge with a division a butterfly step;
#  - a cluster's slots are combined in a tree (not rows6-switchable: in both columns).
# Every command has a time limit and prints line by line (stdbuf): a limit that stops one
# loses nothing already printed.  Stops starting benchmarks after $BUDGET seconds (default
# 115).  Logs under $OUT.
#   BUDGET=115 ITERS=10 sh scripts/device-rows7.sh
. scripts/device-common.sh
log="$out/rows7.log"
start=$(date +%s)
budget=${BUDGET:-115}
BENCH_TIMEOUT=25
# bench ARGS: `cutec bench ARGS --dtype bf16 --iters $iters`, line-buffered, under its limit
bench()
{
    if budget_left; then
        echo "== $(($(date +%s) - start)) s: bench $* (bf16)"
        timeout "$BENCH_TIMEOUT" stdbuf -oL -eL build/cutec bench "$@" --dtype bf16 --iters "$iters" 2>&1
    else
        echo "== skipped (time): bench $*"
    fi
}
old() { echo "-- the schedule before rows7 (CUTEC_ROWS_SCHEDULE=rows6; no torch)"; CUTEC_ROWS_SCHEDULE=rows6 CUTEC_TORCH_ROWS=/dev/null bench "$@"; }
{
    device_head
    timeout 20 make -j16 build/cutec build/tests/kernels/rows/rows_gpu_test 2>&1 | grep -E "error|warning" | head -20
    echo "== tests on the GPU at 262144 (compiles those row kernels: the benches below find them in the cache)"
    timeout 25 stdbuf -oL -eL build/tests/kernels/rows/rows_gpu_test 262144 >"$out/rows_gpu_test.log" 2>&1
    echo "rows_gpu_test 262144 (rc $?): $(tail -n 1 "$out/rows_gpu_test.log")"
    grep -E "^# .* resident" "$out/rows_gpu_test.log"
    grep -m 5 FAIL "$out/rows_gpu_test.log" | cut -c1-400
    bench layernorm
    old layernorm --shape 16384x4096
    old layernorm --shape 4096x32768
    bench softmax --backward --shape 4096x32768
    old softmax --backward --shape 4096x32768
    bench softmax
    bench log-softmax --shape 1024x262144
    old log-softmax --shape 1024x262144
    bench cross-entropy --backward --shape 8192x131072
    old cross-entropy --backward --shape 8192x131072
    bench rmsnorm
    for op in softmax rmsnorm layernorm; do
        bench $op --shape 1024x262144
        old $op --shape 1024x262144
    done
    bench cross-entropy --backward
    old cross-entropy --backward --shape 16384x4096
    echo "== clocks after ($(($(date +%s) - start)) s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 140
