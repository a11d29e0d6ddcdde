#!/bin/sh
# The row-reduction pass of branch rows9 on a GPU machine (issue 16), under 150 s on an H200.
# What changed on rows9 (CUTEC_ROWS_SCHEDULE=rows8 gives the plans before, so that one run
# times both):
#  - rows of 2048-8192 bf16 (16384x4096) for RMSNorm, LayerNorm and cross-entropy are staged
#    in shared memory by persistent blocks of 256 threads, three an SM, up to four rows'
#    copies in flight while a block works on one, the weight and bias staged once (before: a
#    block of two rows in registers, LayerNorm loading its weight and bias from L2 after its
#    two reductions with none of its loads in flight);
#  - LayerNorm's forward over a cluster's staged parts (1024x262144) takes two sums, the
#    mean's and then the squares' about it, in two exchanges (before: Chan's merge of
#    (count, mean, squares), a division a merge);
#  - the norms' forward over a staged row (4096x32768) or a cluster's part (1024x262144)
#    writes its chunks two at a time, both chunks' weight and bias loads issued together
#    (before: an L2 latency a chunk);
#  - every row kernel reads bf16 as 32-bit words, one instruction to widen each half (before:
#    a PRMT and a shift for each high half).
# Steps: device_begin (the build: a no-op), the GPU test at 4096 under its own 40-s limit
# (every op forward and backward at 16384x4096, sampled rows against float64, a line a
# case), then `cutec bench` in bf16 (each checks its rows against float64: "WRONG"), each
# beside a device copy of as many bytes: the changed rows now (PyTorch eager beside) and
# under rows8, then the rest of the table.  Every command has a time limit and
# prints line by line (stdbuf).  Stops starting benchmarks after $BUDGET seconds (default
# 120).  Logs under $OUT.
#   BUDGET=120 ITERS=10 sh scripts/device-rows9.sh
. scripts/device-common.sh
log="$out/rows9.log"
start=$(date +%s)
budget=${BUDGET:-120}
BENCH_TIMEOUT=20
new() { rows_new "$@"; }
old() { rows_old rows8 "$@"; }
both() { new "$@"; old "$@"; }
{
    device_begin
    rows_gpu_test 30 4096
    # what changed, beside the plans before (PyTorch eager beside the first of each)
    bench_bf16 layernorm
    old layernorm
    bench_bf16 rmsnorm
    old rmsnorm
    both cross-entropy --backward --shape 16384x4096
    both softmax --shape 1024x262144 # only the bf16 words changed here
    # the rest of the table
    new layernorm --backward
    new softmax
    new cross-entropy --backward --shape 4096x32768
    new cross-entropy --backward --shape 8192x131072
    new rmsnorm --backward
    both cross-entropy --shape 16384x4096
    new softmax --backward
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 140
