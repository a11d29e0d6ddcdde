#!/bin/sh
# Issue 18 on an sm_90 GPU (engineer attn, session 27): the Hopper attention kernels after P
# and dS became packed fragments (one wgmma.fence a P V batch, so that wait_group 1 lets the
# softmax run beside P V) and head dim 256's 80-key tiles.  Most wanted first, each step
# under a timeout and started only while the run is inside its budget (BUDGET_S, default
# 140 s; a skipped step says so):
#   wgmma_test and attention_test on the GPU (the RS atom from a packed fragment; both
#   forward kernels against float64 at moderate sizes);
#   `cutec bench attention` (8x16x4096 d128 and 16x32x2048 d64, causal and not; AUTO: the
#   Hopper kernel) with torch SDPA in the same run, each row checked against float64 first;
#   d128 at 2x16x16384; d256 at 1x16x16384 (80-key tiles); the backward at 8x16x4096 d128
#   with SDPA's backward; when time is left, d256 with --block-n 64 (the old tiles) and d64
#   with 192-key tiles (387.5 against 393.6 with 128 in session 26, P V serialized then).
# Results go to $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attn.log"
t0=$(date +%s)
budget=${BUDGET_S:-140}
stamp() { echo "== $(date -u +%T) +$(($(date +%s) - t0)) s: $*"; }
# run the rest of the line under timeout $1 if the run has $1 seconds of its budget left
step() {
    t=$1 && shift
    if [ $(($(date +%s) - t0 + t)) -gt "$budget" ]; then echo "== skipped (time): $*"; return; fi
    stamp "$*"
    timeout "$t" "$@" 2>&1
}
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/atom/wgmma_test build/tests/kernels/attention/attention_test 2>&1 |
        grep -E "error|warning" | head -20
    TEST_TIMEOUT=15 device_tests atom/wgmma_test
    TEST_TIMEOUT=35 device_tests kernels/attention/attention_test
    step 45 build/cutec bench attention --iters 10
    step 30 build/cutec bench attention --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5
    step 30 build/cutec bench attention --batch 1 --heads 16 --seqlen 16384 --headdim 256 --iters 5
    step 45 build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 5
    step 30 build/cutec bench attention --batch 1 --heads 16 --seqlen 16384 --headdim 256 --iters 5 --block-n 64
    step 25 build/cutec bench attention --batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10 --block-n 192
    stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 60 "$log"
