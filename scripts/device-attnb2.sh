#!/bin/sh
# The Hopper attention backward, head dim 128 (issue 18 item 3; engineer attnb2).  First the
# backward's GPU tests (attention_bwd_test's GPU cases, which it runs first: the default,
# the fused and the atomic dQ against float64; a hang shows as rc 124 with no line), then
# `cutec bench attention --bwd` d128 (causal and not, SDPA's backward in the same process):
#   default   8x16x4096 with room for its causal row (the mid pass of session 29 cut it):
#             the two kernels, 463.7 TFLOP/s = 91.5% of SDPA there;
#   fused     CUTEC_ATTN_BWD_DQ=fused (deterministic), 8x16x4096: 405.3 there
#             (=atomic measured 440.7 there: not repeated);
# then the default at 2x16x16384 with what is left (its float64 sample check took more than
# 40 s in session 28's passes: likely cut).
# Under 150 s on an H200; the build is expected done (make all tests).  Results in $OUT
# (default build/device-out).
. scripts/device-common.sh
log="$out/attnb2.log"
start=$(date +%s)
stamp() { echo "== $(date -u +%T) +$(($(date +%s) - start)) s: $*"; }
bench() { # SECONDS MODE ARGS: the bench under a time limit, line-buffered
    lim=$1 mode=$2
    shift 2
    stamp "bench attention --bwd $* (CUTEC_ATTN_BWD_DQ=$mode)"
    CUTEC_ATTN_BWD_DQ=$mode timeout "$lim" stdbuf -oL -eL build/cutec bench attention --bwd --headdim 128 \
        --iters 10 "$@" 2>&1
}
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/kernels/attention/attention_bwd_test 2>&1 | grep -E "error|warning" | head -20
    stamp "attention_bwd_test: its GPU cases (first; every element against float64, the same bits again; the fused dQ, deterministic and atomic), 40 s"
    timeout 40 stdbuf -oL -eL build/tests/kernels/attention/attention_bwd_test >"$out/attention_bwd_test.log" 2>&1
    echo "rc $? (124: the time limit, in its interpreter cases once the GPU ones printed)"
    grep -E "cuda|FAIL|differs|passed" "$out/attention_bwd_test.log" | cut -c1-300 | head -24
    bench 48 pass --batch 8 --heads 16 --seqlen 4096
    bench 26 fused --batch 8 --heads 16 --seqlen 4096
    left=$((146 - ($(date +%s) - start)))
    [ "$left" -gt 8 ] && bench "$left" pass --batch 2 --heads 16 --seqlen 16384
    stamp "done"
} >"$log" 2>&1
tail -n 70 "$log"
