#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# The Hopper attention backward with dQ fused into the dK/dV kernel (issue 18 item 3; engineer
# attnb): the backward's GPU tests (after their interpreter cases: moderate sizes, every
# element against float64), then `cutec bench attention --bwd` d128 8x16x4096 (causal and
# not; SDPA's backward in the same process) of the default (two kernels, 7 products), then
# the fused dQ (CUTEC_ATTN_BWD_DQ=fused, 5 products; no row within 35 s in the mid pass):
# two small `run`s against float64 (a hang shows as rc 124), then its bench.
# Under 150 s on an H200;
# the build is expected done (make all tests).  Results in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/attnb.log"
stamp() { echo "== $(date -u +%T) $*"; }
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/kernels/attention/attention_bwd_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=75 device_tests kernels/attention/attention_bwd_test
    grep -E "worst|FAIL|differs" "$out/attention_bwd_test.log" | grep -v "^  interp" | head -20
    stamp "bench attention --bwd 8x16x4096 d128 (the default: two kernels) with SDPA's backward"
    timeout 30 stdbuf -oL -eL build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10 2>&1
    stamp "the fused dQ (CUTEC_ATTN_BWD_DQ=fused), small: every row against float64 (hangs?)"
    CUTEC_ATTN_BWD_DQ=fused timeout 10 stdbuf -oL -eL build/cutec run attention --bwd --batch 1 --heads 2 --seqlen 300 --headdim 128 2>&1; echo "rc $?"
    CUTEC_ATTN_BWD_DQ=fused timeout 10 stdbuf -oL -eL build/cutec run attention --bwd --batch 2 --heads 4 --seqlen 2048 --headdim 128 2>&1; echo "rc $?"
    stamp "bench attention --bwd 8x16x4096 d128, the fused dQ"
    CUTEC_ATTN_BWD_DQ=fused timeout 30 stdbuf -oL -eL build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10 2>&1
    stamp "done"
} >"$log" 2>&1
tail -n 60 "$log"
