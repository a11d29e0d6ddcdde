#!/bin/sh
# Branch attnf43 (issue 18: the Hopper forward d128 non-causal, 8x16x4096 asks 730 TFLOP/s and
# 2x16x16384 780), the final pass: the library's new choice, 192-row Q tiles (three consumer
# warpgroups in the ring, 80 keys a tile) at head dim 128 not causal from 8192 keys on
# (lib.c's attn_forward_rows; CUTEC_ATTN_FWD_ROWS=128|192 forces either), confirmed against
# the 128-row tile on one H200 after `make all tests` (nothing is built here); at most $BUDGET
# (50) s; log $OUT/attnf43.log.  The mid pass (bench/RESULTS.md, attnf43): 16k 737.4 against
# 678.3 (one round), 4k 192 rows x0.959 (three rounds).
#  1. 2x16x16384 in turns (one process, one set of inputs, each form checked against float64
#     first, then timed; each timed turn's line says the card's mean SM clock and power and the
#     clock event reasons NVML gave): the default (192 rows by the rule) / ROWS=128.
#  2. 8x16x4096 the same: the default (128 rows) / ROWS=192.
#  3. (where the budget allows) 4x16x8192, at the rule's threshold: the default (192) / ROWS=128.
# The rules (ratio = the other form / the default, each round's pair, a round's turns in reverse
# in the next): at 16k, ROWS=128's mean <= 0.995 with no round over 1 -> "keep the rule
# (confirmed)"; >= 1.005 -> "revert the rule" (ATTN_ROWS_192_KEYS past any length: 128 rows
# again); else "revert the rule (within noise: no gain)".  At 4k, ROWS=192's mean >= 1.005 with
# every round >= 1 -> "lower the threshold to 4096"; < 0.995 -> "the threshold stays over 4096
# (confirmed)"; else "within noise (as it is)".  At 8k as at 16k, its words about the
# threshold.  A FAILED check -> WRONG.  A step starts only where its limit fits the budget.
#   BUDGET=50 ITERS=10 sh scripts/device-attnf43.sh
. scripts/device-common.sh
log="$out/attnf43.log"
t0=$(date +%s)
budget=${BUDGET:-50}
S4K="--variant hopper --headdim 128 --batch 8 --heads 16 --seqlen 4096"
S8K="--variant hopper --headdim 128 --batch 4 --heads 16 --seqlen 8192"
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
# decide NAME FILE FORM WORDS: FORM against the default in FILE, round by round; WORDS
# "FORM ahead|FORM behind|tie" name the three verdicts
decide()
{
    figures "$2" | awk -v f="$3" -v name="$1" -v words="$4" '
        { val[$1, $2] = $3; if ($2 > rounds) rounds = $2 }
        END {
            n = 0; t = 0; lo = ""; hi = ""; rs = ""; bad = 0
            for (r = 1; r <= rounds; r++) {
                a = val["default", r]; b = val[f, r]
                if (a == "W" || b == "W") bad = 1
                if (a == "" || b == "" || a == "-" || b == "-" || a == "W" || b == "W" || a <= 0) continue
                x = b / a; t += x; n++; rs = rs sprintf(" %.4f", x)
                if (lo == "" || x < lo) lo = x
                if (hi == "" || x > hi) hi = x
            }
            if (bad) { print "decides: " name ": WRONG (a check or a run failed): revert the rule"; exit }
            if (!n) { print "decides: " name ": not timed (as it is)"; exit }
            split(words, w, "|"); m = t / n
            v = m >= 1.005 && lo >= 1 ? w[1] : m <= 0.995 && hi <= 1 ? w[2] : w[3]
            printf "decides: %s: %s (%s / default x%.4f, rounds%s)\n", name, v, f, m, rs }'
}
# clocks FILE: each form's mean SM clock and power over its timed turns
clocks()
{
    figures "$1" | awk '$4 != "-" { c[$1] += $4; w[$1] += $5; n[$1]++ }
        END { for (f in n) printf "   %s: %.0f MHz, %.0f W (%d timed turns)\n", f, c[f] / n[f], w[f] / n[f], n[f] }'
}
# (the shapes split into words where they are used)
# shellcheck disable=SC2086
{
    device_gpu_head "attnf43 (final)"
    echo "== 1. d128 2x16x16384 in turns: default (192 rows) / CUTEC_ATTN_FWD_ROWS=128"
    device_step 30 build/cutec run attention $S16K --iters "$iters" --rounds 3 --turns CUTEC_ATTN_FWD_ROWS=128 |
        tee "$out/t16k.txt"
    echo "== 2. d128 8x16x4096 in turns: default (128 rows) / CUTEC_ATTN_FWD_ROWS=192"
    device_step 14 build/cutec run attention $S4K --iters "$iters" --rounds 3 --turns CUTEC_ATTN_FWD_ROWS=192 |
        tee "$out/t4k.txt"
    echo "== 3. d128 4x16x8192 in turns: default (192 rows) / CUTEC_ATTN_FWD_ROWS=128"
    device_step 16 build/cutec run attention $S8K --iters "$iters" --rounds 2 --turns CUTEC_ATTN_FWD_ROWS=128 |
        tee "$out/t8k.txt"
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active \
        --format=csv 2>&1
    echo "== the figures (label round TFLOP/s MHz W events)"
    for s in t16k t4k t8k; do
        echo "$s:"
        figures "$out/$s.txt" | sed 's/^/   /'
        clocks "$out/$s.txt"
    done
    if [ "$budget" -gt 0 ]; then
        decide "d128 2x16x16384: 192 rows (the rule) against 128" "$out/t16k.txt" CUTEC_ATTN_FWD_ROWS=128 \
            "revert the rule|keep the rule (confirmed)|revert the rule (within noise: no gain)"
        decide "d128 8x16x4096: 192 rows against 128 (the rule)" "$out/t4k.txt" CUTEC_ATTN_FWD_ROWS=192 \
            "lower the threshold to 4096|the threshold stays over 4096 (confirmed)|within noise (as it is)"
        decide "d128 4x16x8192: 192 rows (the rule) against 128" "$out/t8k.txt" CUTEC_ATTN_FWD_ROWS=128 \
            "raise the threshold over 8192|the threshold at 8192 holds|within noise at the threshold (as it is)"
    else
        echo "decides: every form: as it is (no GPU)"
    fi
    echo "== WRONG or FAILED lines: $(cat "$out"/t16k.txt "$out"/t4k.txt "$out"/t8k.txt 2>/dev/null | grep -c 'WRONG\|FAILED')"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 100
