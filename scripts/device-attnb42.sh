#!/bin/sh
# Branch attnb42's final pass on one H200 (issue 18: the Hopper attention backward, d128 bf16, at
# 110% of SDPA's at 8x16x4096 and 2x16x16384), under $BUDGET_S (50) s after the lead's `make all
# tests` (nothing is built here); log $OUT/attnb42.log.  No form of the kernels to time: the mid
# pass deleted CUTEC_ATTN_BWD_PINGPONG (x0.988 at 2x16x16384 in turns).  This pass counts where
# the 16k call's time goes.  The second extra pass (16:53 UTC, ncu, caches and clocks left
# alone) ran the fused dK/dV kernel's first six launches of `cutec run` at 2x16x16384 in
# 18,871-19,019 us at 1,803-1,817 MHz, the warm launches as the first (x1.005), while the same
# process's timed calls that ncu did not profile took 21.35 ms by the CUDA events (the benches'
# 20.6-21.1 ms): a launch after ncu's pause (the GPU idle for its replays) runs 8-11% faster
# than calls back to back.  A power limit that acts over some hundred milliseconds would do
# that: the 16k timings are 10 calls of 20 ms (200 ms, after 80 ms of warm-up) where 4096's are
# 10 of 5 ms (50 ms), and prof39 saw 4096's bench only 0.6% over its kernels while cuDNN's
# (more power) were 15% over theirs at both shapes.  So: 8x16x4096 in turns in one process, the
# default timing (2 ms spans: a call a timing) against CUTEC_BENCH_SPAN_MS=200 (each timing 40
# calls back to back, 200 ms), each form's first call checked against float64, nvidia-smi
# sampling the clock, the power and the power cap's flag beside; then 2x16x16384 the same way
# where the budget has room.  The rule, per shape, r = the mean of the rounds' long-span per-call
# TFLOP/s over the default's: r <= 0.97 -> "the sustained load costs (the power cap): the
# 16k figure is a sustained one, 4096's a burst"; r >= 0.99 -> "no: the spans time alike"; else
# "within the spread".
#   BUDGET_S=50 sh scripts/device-attnb42.sh
. scripts/device-common.sh
log="$out/attnb42.log"
start=$(date +%s)
budget=${BUDGET_S:-50}
TRIAL=CUTEC_BENCH_SPAN_MS=200
# turns NAME SECONDS ARGS: one `run --turns` process under min(SECONDS, the budget left) s, its
# lines into $out/attnb42.NAME (line-buffered: a time limit keeps the rounds it printed)
turns()
{
    name=$1 lim=$2
    shift 2
    left=$((budget - $(el)))
    [ "$left" -lt "$lim" ] && lim=$left
    if [ "$lim" -lt 20 ]; then
        echo "-- skipped (past BUDGET_S): $name"
        : >"$out/attnb42.$name"
        return
    fi
    echo "-- $name: run --turns $TRIAL $* (limit $lim s) $(el_s)"
    device_smi_start "$out/attnb42.$name.smi"
    timeout "$lim" stdbuf -oL -eL build/cutec run attention --bwd --headdim 128 --iters 10 --rounds 2 \
        --turns "$TRIAL" "$@" >"$out/attnb42.$name" 2>&1
    grep -E "^turn|rror|FAIL|refus" "$out/attnb42.$name"
    device_smi_end "$name" "$out/attnb42.$name.smi"
}
# decide NAME: the rule's line from $out/attnb42.NAME's turns
decide()
{
    awk -v f="$1" -v t="$TRIAL" '
        /^turn / { r = $2; lab = $3; sub(/:$/, "", lab)
                   if (/FAILED|failed/) bad = 1
                   for (i = 1; i < NF; i++) if ($(i + 1) == "TFLOP/s") v = $i
                   if (lab == "default") d[r] = v; else if (lab == t) x[r] = v }
        END {
            if (bad) { print "decides: the spans at " f ": no figure (a check against float64 failed)"; exit }
            n = 0; s = 0; line = ""
            for (r in d) if (r in x && d[r] > 0) { n++; q = x[r] / d[r]; s += q
                                                   line = line sprintf(" round %s %.1f / %.1f = x%.4f;", r, x[r], d[r], q) }
            if (n == 0) { print "decides: the spans at " f ": not timed"; exit }
            m = s / n
            v = (m <= 0.97) ? "the sustained load costs (the power cap): a long run times slower a call" : (m >= 0.99) ? "no: the spans time alike" : "within the spread"
            printf "decides: the spans at %s: %s (200 ms spans x%.4f of a call a timing;%s)\n", f, v, m, line }' \
        "$out/attnb42.$1"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "decides: CUTEC_ATTN_BWD_PINGPONG: deleted at the mid pass (2x16x16384 in turns x0.988, behind in both rounds)"
        turns 8x16x4096 40 --batch 8 --heads 16 --seqlen 4096
        turns 2x16x16384 45 --batch 2 --heads 16 --seqlen 16384
        echo "== at $(el) s:"
        decide 8x16x4096
        decide 2x16x16384
    else
        echo "== no GPU here: nothing timed"
        echo "decides: CUTEC_ATTN_BWD_PINGPONG: deleted at the mid pass (2x16x16384 in turns x0.988, behind in both rounds)"
        echo "decides: the spans: not timed (no GPU)"
    fi
    device_end
} >"$log" 2>&1
grep -v "^# \\(check\\|time\\|index\\)" "$log" | tail -n 60
