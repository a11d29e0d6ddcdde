#!/bin/sh
# Branch attnf43 (issue 18: the Hopper forward d128 non-causal, 8x16x4096 asks 730 TFLOP/s and
# 2x16x16384 780), the final pass, on one H200 after `make all tests` (nothing is built here);
# at most $BUDGET (50) s; log $OUT/attnf43.log.  Two things at 2x16x16384:
#  - the library's new choice, 192-row Q tiles (three consumer warpgroups in the ring, 80 keys a
#    tile) at head dim 128 not causal from 8192 query rows and keys on (lib.c's
#    attn_forward_rows; CUTEC_ATTN_FWD_ROWS=128|192 forces either), against the 128-row tile:
#    the mid pass 737.4 against 678.3 (one round), the second pass 728.8 against 659.7 rested,
#    661.0 / 660.6 against 663.4 / 645.9 loaded (the SM clock at ~1,650 MHz, the power cap);
#  - the key tiles rotated (CUTEC_ATTN_FWD_ROTATE=1, opt-in): a Q tile's unmasked key tiles
#    loaded from tile m_block mod their count on, so that a round's 128 blocks on one head do
#    not all read the same K and V tile at once (is that why the 128-row tile at 16k runs
#    ~660-680 where 8k's runs 723?), on both tiles.
#  1. 2x16x16384 in turns (one process, one set of inputs, each form checked against float64
#     first, then timed; each timed turn's line says the card's mean SM clock and power and the
#     clock event reasons NVML gave): the default (192 rows) / ROWS=128 / ROTATE=1 /
#     ROWS=128,ROTATE=1.
#  2. (where the budget allows) 8x16x4096 the default (128 rows) / ROWS=192; 3. 4x16x8192 the
#     default (192) / ROWS=128: the threshold (the second pass: 4k x0.988, 8k x1.002).
# The rules (ratio = FORM / BASE each round, a round's turns in reverse in the next; "ahead":
# the mean >= 1.005 with no round under 1; "behind": the mean <= 0.995 with no round over 1;
# else "tie"): ROWS=128 against the default: behind -> "keep the rule (confirmed)", ahead ->
# "revert the rule" (ATTN_ROWS_192_KEYS past any length), tie -> "keep the rule (within
# noise)"; ROTATE=1 against the default, and ROWS=128,ROTATE=1 against ROWS=128: ahead -> "make
# default" (ROTATE_KEYS in hopper_plan.c), behind -> "delete", tie -> "delete (within noise)".
# A FAILED check -> WRONG.  A step starts only where its limit fits the budget.
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
# decide NAME FILE FORM BASE WORDS: FORM against BASE in FILE, round by round; WORDS
# "ahead|behind|tie" name the three verdicts
decide()
{
    figures "$2" | awk -v f="$3" -v base="$4" -v name="$1" -v words="$5" '
        { val[$1, $2] = $3; if ($2 > rounds) rounds = $2 }
        END {
            n = 0; t = 0; lo = ""; hi = ""; rs = ""; bad = 0
            for (r = 1; r <= rounds; r++) {
                a = val[base, r]; b = val[f, r]
                if (a == "W" || b == "W") bad = 1
                if (a == "" || b == "" || a == "-" || b == "-" || a == "W" || b == "W" || a <= 0) continue
                x = b / a; t += x; n++; rs = rs sprintf(" %.4f", x)
                if (lo == "" || x < lo) lo = x
                if (hi == "" || x > hi) hi = x
            }
            if (bad) { print "decides: " name ": WRONG (a check or a run failed): revert"; exit }
            if (!n) { print "decides: " name ": not timed (as it is)"; exit }
            split(words, w, "|"); m = t / n
            v = m >= 1.005 && lo >= 1 ? w[1] : m <= 0.995 && hi <= 1 ? w[2] : w[3]
            printf "decides: %s: %s (%s / %s x%.4f, rounds%s)\n", name, v, f, base, m, rs }'
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
    R128=CUTEC_ATTN_FWD_ROWS=128 ROT=CUTEC_ATTN_FWD_ROTATE=1
    echo "== 1. d128 2x16x16384 in turns: default (192 rows) / $R128 / $ROT / $R128,$ROT"
    device_step 46 build/cutec run attention $S16K --iters "$iters" --rounds 3 --turns "$R128/$ROT/$R128,$ROT" |
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
        decide "d128 2x16x16384: 128 rows against 192 (the rule)" "$out/t16k.txt" "$R128" default \
            "revert the rule|keep the rule (confirmed)|keep the rule (within noise)"
        decide "d128 2x16x16384: the key tiles rotated, 192 rows" "$out/t16k.txt" "$ROT" default \
            "make default|delete|delete (within noise)"
        decide "d128 2x16x16384: the key tiles rotated, 128 rows" "$out/t16k.txt" "$R128,$ROT" "$R128" \
            "make default|delete|delete (within noise)"
        decide "d128 8x16x4096: 192 rows against 128 (the rule)" "$out/t4k.txt" CUTEC_ATTN_FWD_ROWS=192 default \
            "lower the threshold to 4096|the threshold stays over 4096 (confirmed)|within noise (as it is)"
        decide "d128 4x16x8192: 128 rows against 192 (the rule)" "$out/t8k.txt" "$R128" default \
            "raise the threshold over 8192|the threshold at 8192 holds|within noise at the threshold (as it is)"
    else
        echo "decides: every form: as it is (no GPU)"
    fi
    echo "== WRONG or FAILED lines: $(cat "$out"/t16k.txt "$out"/t4k.txt "$out"/t8k.txt 2>/dev/null | grep -c 'WRONG\|FAILED')"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 100
