#!/bin/sh
# The Hopper attention backward, head dim 128 (issue 18 item 3; engineer attnb3).  First the
# backward's GPU tests (attention_bwd_test's GPU cases, which it runs first: the default, the
# fused and the atomic dQ against float64, the same bits on a second call; then its
# interpreter cases, which the time limit cuts: rc 124 once the GPU lines printed), then
# `cutec bench attention --bwd` d128, causal and not, SDPA's backward in the same process:
#   split    (the default) 8x16x4096: the dK/dV kernel's steps with FlashAttention 3's waits
#            (S^T and dP^T waited for apart, P beside dP^T's product, dS beside dV's);
#   serial   CUTEC_ATTN_BWD_STEPS=serial, 8x16x4096: session 29's steps (451.6 TFLOP/s =
#            89.2% of SDPA in its final pass), the baseline in the same run;
# then the default at 2x16x16384 with what is left.
# Under 150 s on an H200; the build is expected done (make all tests).  Results in $OUT
# (default build/device-out).
. scripts/device-common.sh
log="$out/attnb3.log"
start=$(date +%s)
stamp() { echo "== $(date -u +%T) +$(($(date +%s) - start)) s: $*"; }
bench() { # SECONDS STEPS ARGS: the bench under a time limit, line-buffered
    lim=$1 steps=$2
    shift 2
    stamp "bench attention --bwd $* (CUTEC_ATTN_BWD_STEPS=$steps)"
    CUTEC_ATTN_BWD_STEPS=$steps timeout "$lim" stdbuf -oL -eL build/cutec bench attention --bwd --headdim 128 \
        --iters 10 "$@" 2>&1
}
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/kernels/attention/attention_bwd_test 2>&1 | grep -E "error|warning" | head -20
    stamp "attention_bwd_test: its GPU cases first (every element against float64, the same bits again), 36 s"
    timeout 36 stdbuf -oL -eL build/tests/kernels/attention/attention_bwd_test >"$out/attention_bwd_test.log" 2>&1
    echo "rc $? (124: the time limit, in its interpreter cases once the GPU ones printed)"
    grep -E "cuda|FAIL|differs|passed" "$out/attention_bwd_test.log" | cut -c1-300 | head -24
    bench 40 split --batch 8 --heads 16 --seqlen 4096
    bench 28 serial --batch 8 --heads 16 --seqlen 4096
    left=$((146 - ($(date +%s) - start)))
    [ "$left" -gt 8 ] && bench "$left" split --batch 2 --heads 16 --seqlen 16384
    stamp "done"
} >"$log" 2>&1
tail -n 70 "$log"
