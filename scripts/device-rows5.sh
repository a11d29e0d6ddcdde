#!/bin/sh
# The row-reduction pass of branch rows5 on a GPU machine (issue 16), under 150 s on an H200:
# the row kernels' GPU test (every op forward and backward at the three benchmark sizes,
# sampled rows against float64; and, new, each persistent cluster grid against the clusters
# the driver says fit at once, printed as "# rmsnorm bwd 4096x32768: N clusters ... M
# resident"), then `cutec bench` in bf16 at 16384x4096, 4096x32768 and 1024x262144, each
# beside a device copy of as many bytes and PyTorch eager (bench/torch_rows.py) in the same
# run: the norms' backwards first (what rows5 changed), then the forwards, softmax backward
# and cross-entropy forward+backward (also at 8192x131072), as the time allows.
# What changed on rows5: the backwards that keep dw/db over a cluster-split row launched a
# persistent grid of SMs x 2 / cluster-size clusters (33 of 8 blocks, 8 of 16), more than
# the driver places at once (a cluster's blocks share a GPC): the rest walked their rows in
# a second wave.  The grid is now the driver's count (cuOccupancyMaxActiveClusters).  A
# block whose part of the row is one tile walks no chunk loop (RMSNorm's backward at 262144
# spilled 36 bytes, now none).
# Stops starting benchmarks after $BUDGET seconds (default 100).  Logs under $OUT.
#   BUDGET=100 ITERS=10 sh scripts/device-rows5.sh
. scripts/device-common.sh
log="$out/rows5.log"
start=$(date +%s)
budget=${BUDGET:-100}
BENCH_TIMEOUT=40
{
    device_head
    make -j16 build/cutec build/tests/kernels/rows/rows_gpu_test 2>&1 | grep -E "error|warning" | head -20
    echo "== tests on the GPU"
    timeout 60 build/tests/kernels/rows/rows_gpu_test >"$out/rows_gpu_test.log" 2>&1
    echo "rows_gpu_test: $(tail -n 1 "$out/rows_gpu_test.log")"
    grep -E "^# .* resident" "$out/rows_gpu_test.log"
    grep -m 5 FAIL "$out/rows_gpu_test.log" | cut -c1-400
    bench_bf16 rmsnorm --backward
    bench_bf16 layernorm --backward
    bench_bf16 rmsnorm
    bench_bf16 layernorm
    bench_bf16 softmax
    bench_bf16 softmax --backward
    bench_bf16 cross-entropy --backward
    bench_bf16 cross-entropy --backward --shape 8192x131072
    if budget_left; then
        echo "== $(($(date +%s) - start)) s: bench gemm's default variants on this card (one line names those skipped)"
        timeout 30 build/cutec bench gemm --dtype bf16 --layout tn --sizes 1024 --iters 2 2>&1 | grep -E "^# not run|blackwell|hopper"
    fi
    echo "== clocks after ($(($(date +%s) - start)) s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 120
