#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# The Hopper attention backward, head dim 128 (issue 18 item 3; engineer attnb4, session 31,
# compile-only: written for the next session's first GPU pass).  New, opt-in until measured:
# CUTEC_ATTN_BWD_STEPS=turns, the dK/dV kernel's two consumer warpgroups issuing their
# batches in turns (the forward's ping-pong: scores of one, of the other, dK/dV of one, of the
# other), where the default lets them come as they come (they can fall into step: both
# softmaxes at once, the tensor cores idle).  Most important first, each step under its own
# time limit:
#   1. attention_bwd_test's GPU cases (it runs them first: the default, the fused and atomic
#      dQ, turns alone and with the fused dQ, against float64, the same bits on a second
#      call; the time limit then cuts its interpreter cases: rc 124 once the GPU lines
#      printed);
#   2. `cutec bench attention --bwd` d128 8x16x4096, causal and not, SDPA's backward in the
#      same process: the default (old), then CUTEC_ATTN_BWD_STEPS=turns (new): turns faster
#      -> make them the default (bwd_compile.c's kv_turns_wanted), slower -> delete them;
#   3. the fused dQ (5 products, opt-in) without and with turns, without SDPA (time): with
#      turns above the default's row of step 2 -> the fused dQ the default's candidate;
#   4. turns at 2x16x16384 with what is left.
# Under 150 s on an H200 (BUDGET_S); the build is expected done.  Logs in $OUT (default
# build/device-out); the summary at the end.
. scripts/device-common.sh
t0=$(date +%s)
budget=${BUDGET_S:-150}
log="$out/attnb4.log"
bench() { # SECONDS "VAR=VALUE ..." ARGS: the d128 backward bench under those variables
    lim=$1 vars=$2
    shift 2
    # shellcheck disable=SC2086
    device_step "$lim" env $vars build/cutec bench attention --bwd --headdim 128 --iters 10 "$@"
}
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/kernels/attention/attention_bwd_test 2>&1 | grep -E "error|warning" | head -20
    device_step 28 build/tests/kernels/attention/attention_bwd_test >"$out/attention_bwd_test.log"
    echo "rc $? (124: the time limit, in its interpreter cases once the GPU ones printed)"
    grep -E "cuda|FAIL|differs|passed" "$out/attention_bwd_test.log" | cut -c1-300 | head -24
    shape="--batch 8 --heads 16 --seqlen 4096"
    nosdpa=CUTEC_TORCH_ATTENTION=/no-sdpa-here
    # shellcheck disable=SC2086
    {
        bench 40 CUTEC_ATTN_BWD_STEPS= $shape
        bench 34 CUTEC_ATTN_BWD_STEPS=turns $shape
        bench 26 "CUTEC_ATTN_BWD_DQ=fused $nosdpa" $shape
        bench 26 "CUTEC_ATTN_BWD_DQ=fused CUTEC_ATTN_BWD_STEPS=turns $nosdpa" $shape
    }
    left=$((budget - 4 - ($(date +%s) - t0)))
    [ "$left" -gt 10 ] && bench "$left" CUTEC_ATTN_BWD_STEPS=turns --batch 2 --heads 16 --seqlen 16384
    device_stamp "done"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
echo "== summary (attnb4): the backward's rows; CUTEC_ATTN_BWD_STEPS=turns the new form, the default the old"
grep -E "^== |^# |bwd|WRONG|FAIL|rc " "$log" | cut -c1-160
