#!/bin/sh
# Branch attnf43 (issue 18: the Hopper forward d128 non-causal, 8x16x4096 asks 730 TFLOP/s and
# 2x16x16384 780): what the card's clock and power do at the two shapes, and two opt-in forms
# beside the default: the new 192-row Q tile (CUTEC_ATTN_FWD_ROWS=192: three consumer
# warpgroups in the ring, 80 keys a tile, so that a warpgroup's softmax has two others' GEMMs
# to hide behind where it has one's) and the warpgroup index uniform with the descriptors a
# stage (CUTEC_ATTN_FWD_WGU=1, session 39's, timed x0.993 / x1.010 then), on one H200 after
# `make all tests` (nothing is built here); at most $BUDGET (50) s; log $OUT/attnf43.log.
#  1. 2x16x16384 in turns (one process, one set of inputs, each form checked against float64
#     first, then timed; `run --turns` prints each timed turn's mean SM clock and power and
#     the clock event reasons NVML gave): the default, $FORMS, and the diagnostic without the
#     softmax past each tile's first key tile ($DIAG16: wrong by design, timed for its clock).
#  2. 8x16x4096 the same (no diagnostic).
#  3. ncu, the clock locked at base (--clock-control base): one launch of the default at each
#     shape: its time, clock, issue and tensor pipes, L2 (are 16k's key tiles as fast as 4k's
#     at one clock? where the bench's 16k is no faster, the clock is the difference).
#  4. (where the budget allows) 2x16x16384 with 100 ms timings, the default and the diagnostic
#     in turns: the clock and power under sustained load, with and without the softmax.
# The rules (ratio = form / default, each round's pair, a round's turns in reverse in the
# next): a form whose mean at BOTH shapes is >= 1.005 with every round >= 1 -> "make default";
# a mean under 0.995 at either -> "delete"; else "keep opt-in (within noise)"; a FAILED
# check -> WRONG.  The clocks: "16k clocks lower" where 16k's default turns' mean SM clock is
# 15 MHz or more under 4k's.  A step starts only where its limit still fits in the budget.
#   BUDGET=50 ITERS=10 FORMS="CUTEC_ATTN_FWD_ROWS=192/CUTEC_ATTN_FWD_WGU=1" sh scripts/device-attnf43.sh
. scripts/device-common.sh
log="$out/attnf43.log"
t0=$(date +%s)
budget=${BUDGET:-50}
FORMS=${FORMS:-CUTEC_ATTN_FWD_ROWS=192/CUTEC_ATTN_FWD_WGU=1}
DIAG16=${DIAG16-CUTEC_ATTN_FWD_DIAG=nosoftmax}
S4K="--variant hopper --headdim 128 --batch 8 --heads 16 --seqlen 4096"
S16K="--variant hopper --headdim 128 --batch 2 --heads 16 --seqlen 16384"
# figures FILE: "LABEL ROUND TFLOPS MHZ WATTS EVENTS" of each turn line of a `run --turns` log
# (TFLOPS W: a FAILED check; the rest "-" where the line has none)
figures()
{
    awk '/^turn [0-9]+ / { l = $3; sub(":$", "", l); v = "-"; mhz = "-"; w = "-"; ev = "-"
        for (i = 4; i <= NF; i++) { f = $i; sub(",$", "", f)
            if (f == "TFLOP/s") v = $(i - 1)
            if (f == "MHz") mhz = $(i - 1)
            if (f == "W") w = $(i - 1)
            if ($i == "events") ev = $(i + 1) }
        if (/FAILED|: failed/) v = "W"
        print l, $2, v, mhz, w, ev }' "$1" 2>/dev/null
}
# decide NAME FORM: the rule's line for FORM against the default at both shapes
decide()
{
    { figures "$out/t16k.txt" | sed 's/^/16k /'; figures "$out/t4k.txt" | sed 's/^/4k /'; } |
        awk -v f="$2" -v name="$1" '
        { val[$1, $2, $3] = $4; if ($3 > rounds) rounds = $3; shapes[$1] = 1 }
        END {
            bad = 0; out = ""; win = 1; lose = 0; any = 0
            for (s in shapes) {
                n = 0; t = 0; lo = ""; rs = ""
                for (r = 1; r <= rounds; r++) {
                    a = val[s, "default", r]; b = val[s, f, r]
                    if (a == "W" || b == "W") bad = 1
                    if (a == "" || b == "" || a == "-" || b == "-" || a == "W" || b == "W" || a <= 0) continue
                    x = b / a; t += x; n++; rs = rs sprintf(" %.4f", x); if (lo == "" || x < lo) lo = x
                }
                if (!n) { win = 0; out = out " " s ": not timed;"; continue }
                any = 1; m = t / n
                if (!(m >= 1.005 && lo >= 1)) win = 0
                if (m < 0.995) lose = 1
                out = out sprintf(" %s x%.4f (rounds%s);", s, m, rs)
            }
            if (bad) { print "decides: " name ": WRONG (a check or a run failed): delete the form"; exit }
            if (!any) { print "decides: " name ": not timed (as it is)"; exit }
            v = win ? "make default" : lose ? "delete" : "keep opt-in (within noise)"
            printf "decides: %s: %s;%s\n", name, v, out }'
}
# clocks FILE: the mean of the default's timed turns' SM clocks and power in FILE ("- -": none)
clocks()
{
    figures "$1" | awk '$1 == "default" && $4 != "-" { c += $4; w += $5; n++ }
        END { if (n) printf "%.0f %.0f\n", c / n, w / n; else print "- -" }'
}
NCU_METRICS="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max"
NCU_METRICS="$NCU_METRICS,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum"
NCU_METRICS="$NCU_METRICS,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct"
NCU_METRICS="$NCU_METRICS,regex:^sm__pipe_[a-z0-9_]+_cycles_active\.avg\.pct_of_peak_sustained_active$"
NCU_METRICS="$NCU_METRICS,regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$"
# ncu_one NAME SECONDS SHAPE...: one launch of the default (the third: after the checked call
# and the first warm-up) under ncu at the base clock, its metric lines
ncu_one()
{
    n=$1 lim=$2 && shift 2
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    [ -n "$ncu" ] || { echo "== no ncu: $n skipped"; return; }
    set -f
    # shellcheck disable=SC2086
    device_step "$lim" "$ncu" --clock-control base --target-processes all -k regex:hopper --launch-skip 2 \
        --launch-count 1 --print-units base --metrics "$NCU_METRICS" build/cutec run attention "$@" --iters 1 \
        >"$out/ncu-$n.txt"
    set +f
    # (the stall reasons of 0.1 cycles an issue and more, the pipes busy 2% and more)
    grep -E "gpu__|sm__|smsp__|lts__|==PROF==|ERR" "$out/ncu-$n.txt" | tr -s ' ' | awk -v n="$n" '{ v = $NF; gsub(",", "", v) }
        /stalled/ && v + 0 < 0.1 { next } /sm__pipe_/ && v + 0 < 2 { next } { print "   " n " " $0 }' | cut -c1-160
}
# (S4K and S16K split into words where they are used)
# shellcheck disable=SC2086
{
    device_gpu_head "attnf43 (mid)"
    echo "== 1. d128 2x16x16384 in turns: default / $FORMS${DIAG16:+ / $DIAG16}"
    device_step 22 build/cutec run attention $S16K --iters "$iters" --rounds 3 --turns "$FORMS${DIAG16:+/$DIAG16}" |
        tee "$out/t16k.txt"
    echo "== 2. d128 8x16x4096 in turns: default / $FORMS"
    device_step 16 build/cutec run attention $S4K --iters "$iters" --rounds 3 --turns "$FORMS" | tee "$out/t4k.txt"
    echo "== 3. ncu at the base clock, one launch of the default each"
    ncu_one 16k 10 $S16K
    ncu_one 4k 8 $S4K
    echo "== 4. d128 2x16x16384 sustained (CUTEC_BENCH_SPAN_MS=100: a timing 100 ms of calls) in turns: default${DIAG16:+ / $DIAG16}"
    device_step 14 env CUTEC_BENCH_SPAN_MS=100 build/cutec run attention $S16K --iters 3 --rounds 3 \
        ${DIAG16:+--turns "$DIAG16"} | tee "$out/s16k.txt"
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active \
        --format=csv 2>&1
    echo "== the figures (label round TFLOP/s MHz W events)"
    for s in t16k t4k s16k; do
        echo "$s:"
        figures "$out/$s.txt" | sed 's/^/   /'
    done
    if [ "$budget" -gt 0 ]; then
        echo "$FORMS" | tr '/' '\n' | while read -r f; do [ -n "$f" ] && decide "$f at d128 4k and 16k" "$f"; done
        c16=$(clocks "$out/t16k.txt") c4=$(clocks "$out/t4k.txt")
        awk -v a="$c16" -v b="$c4" 'BEGIN { split(a, x, " "); split(b, y, " ")
            if (x[1] == "-" || y[1] == "-") { print "decides: the clocks: no figure (NVML?)"; exit }
            v = x[1] <= y[1] - 15 ? "16k clocks lower" : "16k clocks as 4k"
            printf "decides: the clocks: %s (the default'"'"'s timed turns: 16k %d MHz %d W, 4k %d MHz %d W)\n",
                   v, x[1], x[2], y[1], y[2] }'
    else
        echo "decides: every form: as it is (no GPU)"
    fi
    echo "== WRONG or FAILED lines: $(cat "$out"/t16k.txt "$out"/t4k.txt 2>/dev/null | grep -c 'WRONG\|FAILED')"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 140
