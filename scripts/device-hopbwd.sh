#!/bin/sh
# The Hopper attention backward on an sm_90 GPU (issue 18 item 3), most wanted first: build;
# `cutec bench attention --bwd` (AUTO: the Hopper kernels on sm_90) at 8x16x4096 and
# 2x16x16384 d128 (causal and not), with torch SDPA's backward in the same run (each row
# checked against float64 first); attention_bwd_test on the GPU (moderate sizes, both
# kernels, every element against float64; it prints the ptxas reports too).
# Each section is stamped with the time.  Results go to $OUT (default build/device-out); the
# log's tail is printed.  About 4 minutes on an H200 (each bench row checks against float64 before it is timed).
. scripts/device-common.sh
log="$out/hopbwd.log"
stamp() { echo "== $(date -u +%T) $*"; }
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    stamp build
    make -j16 all build/tests/kernels/attention/attention_bwd_test 2>&1 | grep -E "error|warning" | head -40
    stamp "bench attention --bwd 8x16x4096 d128 (hopper, auto) with SDPA's backward"
    timeout 80 build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10 2>&1
    stamp "bench attention --bwd 2x16x16384 d128"
    timeout 80 build/cutec bench attention --bwd --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5 2>&1 | tail -n 3
    TEST_TIMEOUT=45 device_tests kernels/attention/attention_bwd_test
    stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 60 "$log"
