#!/bin/sh
# Issue 18 forward and decode on an sm_90 GPU (engineer attnf, session 28).  Each step under
# a timeout and started only while the run is inside its budget (BUDGET_S, default 145 s; a
# skipped step says so); every command's output unbuffered (stdbuf), so that a step its
# timeout kills still shows what it printed:
#   attention_decode_test and attention_test on the GPU (every kernel against float64);
#   `cutec bench attention --decode`: 8x32x32768 d128, 32 and 8 KV heads, GB/s of K and V
#   read beside a device copy of the same bytes and torch SDPA, all in the same run (it
#   printed nothing in 50 s in session 27: drawing 4 GB of gaussian inputs one at a time
#   took minutes; the splits now fill whole waves of resident blocks);
#   the forward with SDPA beside: 8x16x4096 d128 and 16x32x2048 d64 causal and not (d64:
#   192-row Q tiles, three consumer warpgroups in a ring; then the 128-row tiles of session
#   27, --block-m 128, for old against new), 2x16x16384 d128, 1x16x16384 d256, the SM80
#   kernel at 8x16x4096 d128.
# Results go to $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf.log"
t0=$(date +%s)
budget=${BUDGET_S:-145}
stamp() { echo "== $(date -u +%T) +$(($(date +%s) - t0)) s: $*"; }
# run the rest of the line under timeout $1 if the run has $1 seconds of its budget left
step() {
    t=$1 && shift
    if [ $(($(date +%s) - t0 + t)) -gt "$budget" ]; then echo "== skipped (time): $*"; return; fi
    stamp "$*"
    timeout "$t" stdbuf -oL -eL "$@" 2>&1
}
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/kernels/attention/attention_test build/tests/kernels/attention/attention_decode_test 2>&1 |
        grep -E "error|warning" | head -20
    TEST_TIMEOUT=15 device_tests kernels/attention/attention_decode_test
    TEST_TIMEOUT=30 device_tests kernels/attention/attention_test
    step 30 build/cutec bench attention --decode --iters 20
    step 35 build/cutec bench attention --iters 10
    step 20 build/cutec bench attention --batch 16 --heads 32 --seqlen 2048 --headdim 64 --block-m 128 --iters 10
    step 20 build/cutec bench attention --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5
    step 20 build/cutec bench attention --batch 1 --heads 16 --seqlen 16384 --headdim 256 --iters 5
    step 20 build/cutec bench attention --variant sm80 --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 5
    stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 60 "$log"
