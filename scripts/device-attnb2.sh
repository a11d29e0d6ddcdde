#!/bin/sh
# The Hopper attention backward, head dim 128 (issue 18 item 3; engineer attnb2): where the
# fused dQ loses.  First the backward's GPU tests (attention_bwd_test's GPU cases, which it
# runs first: every variant against float64; a hang shows as rc 124 with no line), then
# `cutec bench attention --bwd` d128 8x16x4096 (causal and not, SDPA's backward in the same
# process) of
#   default   the two kernels (scores now overwrite their accumulators in place: no
#             warpgroup.wait that ptxas injected, C7517);
#   atomic    CUTEC_ATTN_BWD_DQ=atomic: the fused dQ added in no set order (no turns):
#             the fused kernel without the deterministic chain between key tiles;
#   fused     CUTEC_ATTN_BWD_DQ=fused: deterministic, its flags now GPU-scope (were
#             system-scope), each warpgroup's half of dQ's part handed over alone (the
#             warpgroups met at one barrier every step): 219.8 TFLOP/s in the final pass
#             of session 28;
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
    stamp "attention_bwd_test: its GPU cases (first; every element against float64, the same bits again; the fused dQ, deterministic and atomic), 45 s"
    timeout 45 stdbuf -oL -eL build/tests/kernels/attention/attention_bwd_test >"$out/attention_bwd_test.log" 2>&1
    echo "rc $? (124: the time limit, in its interpreter cases once the GPU ones printed)"
    grep -E "cuda|FAIL|differs|passed" "$out/attention_bwd_test.log" | cut -c1-300 | head -24
    bench 26 pass --batch 8 --heads 16 --seqlen 4096
    bench 26 atomic --batch 8 --heads 16 --seqlen 4096
    bench 26 fused --batch 8 --heads 16 --seqlen 4096
    left=$((146 - ($(date +%s) - start)))
    [ "$left" -gt 8 ] && bench "$left" pass --batch 2 --heads 16 --seqlen 16384
    stamp "done"
} >"$log" 2>&1
tail -n 70 "$log"
