#!/bin/sh
# The row-reduction pass of branch rows8 on a GPU machine (issue 16), under 150 s on an H200.
# What changed on rows8: a cluster's blocks exchange their partial reductions with st.async
# onto each receiver's mbarrier (no fence), where rows7's st.shared::cluster + cluster barrier
# (release arrive: ptxas's MEMBAR.ALL.GPU, 14% of softmax's stall samples at 1024x262144)
# stays as CUTEC_ROWS_SCHEDULE=rows7.  Every plan with a cluster: the forwards at 1024x262144,
# cross-entropy with dlogits at 8192x131072 and 1024x262144, the backwards at 4096x32768 and
# 1024x262144.
# LayerNorm's sums select a vector's sum, not each element, and a bf16 pair's top half
# becomes an f32 in one PRMT (LayerNorm fwd 16384x4096: 792 -> 688 SASS lines; measured
# without the old form beside: session 29's 81.5% of the copy is the reference), and
# cross-entropy's gradient is p (scale/sum) + a shift selected at the label (fwd+bwd
# 16384x4096: 1104 -> 968 lines; session 29: 69.9%).
# The mid pass of session 30 measured these against rows7's exchange (bench/RESULTS.md).
# Steps: device_begin (the build: a no-op), the GPU test at 262144 under its own 40-s limit
# (every op forward and backward, sampled rows against float64, a line a case; it warms the
# JIT cache for the benches), then `cutec bench` in bf16 (each checks its rows: "WRONG"),
# each beside a device copy of as many bytes: every op at the issue's three shapes, then
# rows7's exchange beside the two rows the mid pass moved most, PyTorch eager once at the end.
# Every command has a time limit and prints line by line (stdbuf): a limit that stops one
# loses nothing already printed.  Stops starting benchmarks after $BUDGET seconds (default
# 115).  Logs under $OUT.
#   BUDGET=115 ITERS=10 sh scripts/device-rows8.sh
. scripts/device-common.sh
log="$out/rows8.log"
start=$(date +%s)
budget=${BUDGET:-115}
BENCH_TIMEOUT=20
new() { CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$@"; }
old() { echo "-- rows7's exchange (CUTEC_ROWS_SCHEDULE=rows7)"; CUTEC_ROWS_SCHEDULE=rows7 CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$@"; }
both() { new "$@"; old "$@"; }
{
    device_begin
    echo "== the GPU test at 262144 (40 s)"
    timeout 40 stdbuf -oL -eL build/tests/kernels/rows/rows_gpu_test 262144 >"$out/rows_gpu_test.log" 2>&1
    echo "rows_gpu_test 262144 (rc $?): $(tail -n 1 "$out/rows_gpu_test.log")"
    grep -E "FAIL|resident|checked" "$out/rows_gpu_test.log" | cut -c1-400 | head -n 24
    # the issue's table: every op at the three shapes (cross-entropy also at 8192x131072)
    new softmax
    new log-softmax --shape 1024x262144
    new rmsnorm
    new layernorm
    new cross-entropy --backward
    new cross-entropy --backward --shape 8192x131072
    new softmax --backward
    new rmsnorm --backward
    new layernorm --backward
    # rows7's exchange beside the two rows the mid pass moved most
    both softmax --shape 1024x262144
    old cross-entropy --backward --shape 8192x131072
    bench_bf16 softmax --shape 16384x4096 # PyTorch eager in the same run
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 140
