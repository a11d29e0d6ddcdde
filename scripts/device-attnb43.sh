#!/bin/sh
# Branch attnb43's pass on one H200 (issue 18: the Hopper attention backward, d128 bf16, at 110%
# of SDPA's at 8x16x4096 and 2x16x16384), under $BUDGET_S (50) s after the lead's `make all
# tests` (nothing is built here); log $OUT/attnb43.log.
# A fair bench: session 42 (attnb42) measured the backward's figure moving ~12% with the card's
# power state (rested 548.6 TFLOP/s, loaded 481-487 at 8x16x4096), while `cutec bench attention`
# timed SDPA's process first and ours after our compile and float64 check.  `--rest MS` (this
# branch) starts every timing, ours and SDPA's, after MS ms of an idle GPU, and times SDPA both
# before ours and after it; the script prints the two tables.  nvidia-smi samples the clock
# and power beside.  The rule, per row: "order matters" where ours' % of the two SDPA timings
# differ by 2 points or more, else "the order does not matter"; the mark read rested: both
# at 110% or more -> "met rested", else the lower of the two.
# The producer's lines of the fused kernel: the mid pass (an H200 held at 1500 MHz) timed them
# at x1.071 of the consumers' copies in one round (453.4 / 454.6 TFLOP/s against 423.2), and the
# lead's second pass (19:05 UTC, 1980 MHz) the old form against the new default at x0.915 in
# three rounds: confirmed, CUTEC_ATTN_BWD_LINES=consumers deleted.
# The lead's third pass (19:37 UTC, TURNS=1): the same lines in the two kernels' dK/dV kernel
# (causal's default at d128, d96's), CUTEC_ATTN_BWD_LINES=producer, against the default in
# turns at 8x16x4096 causal (3 rounds, each timing after $REST ms idle, each form's first call
# checked against float64 on the GPU): x0.998, "delete: within the spread" (the rule: m = the
# mean of the rounds' form / default TFLOP/s; a check failed -> "revert"; m >= 1.005 -> "keep";
# m <= 0.995 -> "delete: slower"; else "delete: within the spread"); deleted with its variable.
# Its fair bench at 2x16x16384 printed no row in the 29 s left.  The last pass: that bench
# alone (TURNS=0 by default now), 50 s: the fused default's first 16k figure and, if SDPA's
# second run fits, the both-orders table.
# (PROFILE=1; not by default) where does the fused dK/dV kernel wait:
# session 42's early profile read "ours stalls on barriers" (3.80 of 10.91 warp cycles an
# issue at 2x16x16384).
# By the count (bench/RESULTS.md, attnb43) three of the block's twelve warps (the dQ writer,
# the turn's and the count's warps) sit parked at named barriers almost all the time, one on
# each of three SM sub-partitions: that alone is ~2.7 of the 3.80 at a 27.4% issue rate.  ncu
# on one launch (2x16x4096, SourceCounters), the samples at each wait instruction (BAR, SYNCS:
# mbarrier, DEPBAR: wgmma's wait) with their reasons: which of them are the consumers'.
# The bench here: --rows noncausal (the marks; both rows did not fit the mid pass's 28 s).
#   SHAPE="--batch 8 --heads 16 --seqlen 4096" TURNS=0 PROFILE=1 REST_MS=1000 sh scripts/device-attnb43.sh
. scripts/device-common.sh
log="$out/attnb43.log"
start=$(date +%s)
budget=${BUDGET_S:-50}
REST=${REST_MS:-500}
TRIAL=${TRIAL:-CUTEC_ATTN_BWD_LINES=producer}
SHAPE=${SHAPE:---batch 2 --heads 16 --seqlen 16384}
TURNS_SHAPE=${TURNS_SHAPE:---batch 8 --heads 16 --seqlen 4096 --causal}
# bench NAME SECONDS ARGS: `cutec bench attention --bwd --rest $REST ARGS` under min(SECONDS,
# the budget left) s, line-buffered into $out/attnb43.NAME
bench()
{
    name=$1
    device_left "$name" "$2" || { : >"$out/attnb43.$name"; return; }
    shift 2
    echo "-- $name: bench attention --bwd --iters 10 --rest $REST --rows ${ROWS:-noncausal} $* (limit $lim s) $(el_s)"
    device_smi_start "$out/attnb43.$name.smi"
    # shellcheck disable=SC2086
    timeout "$lim" stdbuf -oL -eL build/cutec bench attention --bwd --headdim 128 --iters 10 --rest "$REST" \
        --rows "${ROWS:-noncausal}" "$@" \
        >"$out/attnb43.$name" 2>&1
    grep -E "^bf16|^attention|^# (both|torch|NVIDIA|H200)|WRONG|rror|FAIL|skipped" "$out/attnb43.$name"
    device_smi_end "$out/attnb43.$name.smi" "$name"
}
# turns NAME SECONDS ARGS: `run attention --bwd --turns $TRIAL --rest $REST ARGS` under
# min(SECONDS, the budget left) s, line-buffered into $out/attnb43.NAME
turns()
{
    name=$1
    device_left "$name" "$2" || { : >"$out/attnb43.$name"; return; }
    shift 2
    echo "-- $name: run attention --bwd --turns $TRIAL --rounds 3 --rest $REST $* (limit $lim s) $(el_s)"
    device_smi_start "$out/attnb43.$name.smi"
    timeout "$lim" stdbuf -oL -eL build/cutec run attention --bwd --headdim 128 --iters 10 --rounds 3 --rest "$REST" \
        --turns "$TRIAL" "$@" >"$out/attnb43.$name" 2>&1
    grep -E "^turn|rror|FAIL|refus" "$out/attnb43.$name"
    device_smi_end "$out/attnb43.$name.smi" "$name"
}
# decide_turns NAME: the trial's rule from $out/attnb43.NAME
decide_turns()
{
    r=$(device_turns_mean "$out/attnb43.$1" "$TRIAL")
    case $r in
    bad) echo "decides: $TRIAL at $1: revert (a check against float64 failed)" ;;
    none) echo "decides: $TRIAL at $1: not timed" ;;
    *) echo "$r" | awk -v f="$1" -v t="$TRIAL" '{ m = $1 + 0; sub(/^[^ ]* /, "")
           v = (m >= 1.005) ? "keep: the default (the consumers'"'"' copies deleted)" : (m <= 0.995) ? "delete: slower" : "delete: within the spread"
           printf "decides: %s at %s: %s (x%.4f of the default; %s)\n", t, f, v, m, $0 }' ;;
    esac
}
# profile SECONDS: the fused dK/dV kernel's first launch of `cutec run attention --bwd` at
# 2x16x4096 under ncu (WarpStateStats, SourceCounters), then its waits by instruction
profile()
{
    device_left profile "$1" 12 || return
    # shellcheck disable=SC2012
    ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -n 1)
    [ -n "$ncu" ] || { echo "-- profile: no ncu"; return; }
    echo "-- profile: ncu SourceCounters, the fused dK/dV kernel's first launch at 2x16x4096 (limit $lim s) $(el_s)"
    timeout "$lim" "$ncu" --section WarpStateStats --section SourceCounters --kernel-name regex:dkdv -c 1 -f \
        -o "$out/attnb43-prof" build/cutec run attention --bwd --headdim 128 --batch 2 --heads 16 --seqlen 4096 \
        --iters 1 >"$out/attnb43.prof" 2>&1
    grep -E "verified|FAILED|rror|==ERROR|==WARNING" "$out/attnb43.prof" | cut -c1-200 | head -n 4
    [ -f "$out/attnb43-prof.ncu-rep" ] || { echo "-- profile: no report"; return; }
    timeout 15 "$ncu" --import "$out/attnb43-prof.ncu-rep" --page source --csv --print-source sass \
        >"$out/attnb43-sass.csv" 2>&1
    python3 scripts/ncu_top.py "$out/attnb43-sass.csv" 12 || head -c 600 "$out/attnb43-sass.csv"
    python3 scripts/ncu_top.py "$out/attnb43-sass.csv" 24 'BAR|SYNCS|DEPBAR|WARPSYNC' 2>/dev/null | tail -n +3
}
# decide NAME: the rule's lines from the "both orders" table of $out/attnb43.NAME
decide()
{
    awk -v f="$1" '
        /WRONG|FAILED/ { bad = 1 }
        /^# both orders/ { on = 1; next }
        on && /^bf16/ { n++; a = $(NF - 1); b = $NF; sub(/%/, "", a); sub(/%/, "", b)
                        row = $0; sub(/  +[0-9.-].*$/, "", row)
                        d = a - b; if (d < 0) d = -d
                        lo = (a < b) ? a : b
                        printf "decides: %s (%s): ours %.1f%% of SDPA timed first, %.1f%% of SDPA timed after: %s; the 110%% mark read rested: %s\n",
                            row, f, a, b, (d >= 2) ? "order matters (" d " points)" : "the order does not matter (" d " points)",
                            (lo >= 110) ? "met" : "not met (" lo "%)" }
        END { if (bad) print "decides: " f ": no figure (a check against float64 failed)"
              else if (!n) print "decides: " f ": not timed (no both-orders table)" }' "$out/attnb43.$1"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        [ "${TURNS:-0}" = 1 ] && turns lines "${TURNS_S:-24}" $TURNS_SHAPE
        [ "${PROFILE:-0}" = 1 ] && profile "${PROFILE_S:-20}"
        # shellcheck disable=SC2086
        bench bwd "${BENCH_S:-50}" $SHAPE
        echo "== at $(el) s:"
        [ "${TURNS:-0}" = 1 ] && decide_turns lines
        decide bwd
    else
        echo "== no GPU here: nothing timed"
        [ "${TURNS:-0}" = 1 ] && echo "decides: $TRIAL: not timed (no GPU)"
        echo "decides: the bench's order: not timed (no GPU)"
    fi
    device_end
} >"$log" 2>&1
grep -v "^# \\(check\\|time\\|index\\)" "$log" | tail -n 90
