#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# The row-reduction pass of branch rows9 on a GPU machine (issue 16), under 150 s on an H200.
# rows9's forms are opt-in until a GPU has timed them (no GPU in session 31):
# CUTEC_ROWS_SCHEDULE=rows9 turns them on, so each changed row runs twice here, the default
# first (PyTorch eager beside the first of each op), then rows9's:
#  - rows of 2048-8192 bf16 (16384x4096) for RMSNorm, LayerNorm and cross-entropy staged in
#    shared memory by persistent blocks of 256 threads, three an SM, up to four rows' copies
#    in flight while a block works on one, the weight and bias staged once (default: a block
#    of two rows in registers, LayerNorm loading its weight and bias from L2 after its two
#    reductions with none of its loads in flight);
#  - LayerNorm's forward over a cluster's staged parts (1024x262144) by two sums, the mean's
#    and then the squares' about it, in two exchanges (default: Chan's merge, a division a
#    merge);
#  - the norms' forward over a staged row (4096x32768) or a cluster's part (1024x262144)
#    writes its chunks two at a time, both chunks' weight and bias loads issued together
#    (default: an L2 latency a chunk);
#  - every row kernel reads bf16 as 32-bit words, one instruction to widen each half
#    (default: a PRMT and a shift for each high half).
# What each pair decides: rows9 faster on a row -> make that form the default there; slower
# -> delete it (bench/RESULTS.md, rows9's section, says which form each row measures; the
# rows with CUTEC_ROWS9_WORDS=0 part the words from the other forms).
# Steps: device_begin (the build: a no-op), the GPU test at 4096 with rows9's forms (every
# op forward and backward, sampled rows against float64, a line a case), then `cutec bench`
# in bf16 (each checks its rows against float64, rows9's at 262144 too: "WRONG"), each
# beside a device copy of as many bytes.
# Every command has a time limit and prints line by line (stdbuf).  Stops starting benchmarks
# after $BUDGET seconds (default 120).  Logs under $OUT.
#   BUDGET=120 ITERS=10 sh scripts/device-rows9.sh
. scripts/device-common.sh
log="$out/rows9.log"
start=$(date +%s)
budget=${BUDGET:-120}
BENCH_TIMEOUT=20
new() { rows_sched rows9 "$@"; }
nowords() { echo "-- (CUTEC_ROWS9_WORDS=0: rows9 without the bf16 words)"; CUTEC_ROWS9_WORDS=0 rows_sched rows9 "$@"; }
both() { rows_new "$@"; new "$@"; }
{
    device_begin
    CUTEC_ROWS_SCHEDULE=rows9 rows_gpu_test 20 4096
    # the changed rows: the default beside PyTorch eager, then rows9's
    bench_bf16 layernorm
    new layernorm
    bench_bf16 rmsnorm
    new rmsnorm
    both cross-entropy --backward --shape 16384x4096
    nowords layernorm # forms 1-3 without 4
    nowords rmsnorm
    both softmax --shape 1024x262144 # the bf16 words alone
    both cross-entropy --backward --shape 8192x131072 # the words alone
    both layernorm --backward # the words alone; LayerNorm backward's figure
    both rmsnorm --backward
    both cross-entropy --shape 16384x4096
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 140
