#!/bin/sh
# The Hopper attention backward with dQ fused into the dK/dV kernel (issue 18 item 3; engineer
# attnb): the backward's GPU tests (moderate sizes, every element against float64), then
# `cutec bench attention --bwd` d128 (causal and not; SDPA's backward in the same process)
# at 8x16x4096, the old two-kernel path there (CUTEC_ATTN_BWD_DQ=pass: a dQ kernel of its
# own, 7 products) for the comparison, then 2x16x16384 (its inputs take most of its 48 s).
# Under 150 s on an H200;
# the build is expected done (make all tests).  Results in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/attnb.log"
stamp() { echo "== $(date -u +%T) $*"; }
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/kernels/attention/attention_bwd_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=35 device_tests kernels/attention/attention_bwd_test
    grep -E "worst|FAIL|differs" "$out/attention_bwd_test.log" | grep -v "^  interp" | head -20
    stamp "bench attention --bwd 8x16x4096 d128 (fused dQ) with SDPA's backward"
    timeout 35 stdbuf -oL -eL build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10 2>&1
    stamp "bench attention --bwd 8x16x4096 d128, the old path (a dQ kernel of its own)"
    CUTEC_ATTN_BWD_DQ=pass timeout 30 stdbuf -oL -eL build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10 2>&1
    stamp "bench attention --bwd 2x16x16384 d128 (fused dQ)"
    timeout 48 stdbuf -oL -eL build/cutec bench attention --bwd --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5 2>&1
    stamp "done"
} >"$log" 2>&1
tail -n 60 "$log"
