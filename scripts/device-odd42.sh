#!/bin/sh
# The final pass of branch odd42 on one H200 (issue 17: 4097x3x8191 bf16 and 3x5x100000 f32 at 70%
# of the copy), under 50 s of GPU work after the lead's `make all tests` (nothing is built here);
# log $OUT/odd42.log.  The mid pass (16:04-16:07 UTC, /work/notes/mid42/odd42.txt: this script
# at 237fcd0e) timed in processes in turns: bf16 4097x8191 x3 with the skew form's
# L2 prefetch 1 ahead 1.0334x the default (66.3% of the copy against 63.9%), A's loads before
# x's the same (deleted), 3x5x100000 f32's last block by predicated loads 0.81x (deleted), with
# 4 vectors a lane and row (196 splits) 1.08x; ncu of the skew kernel: long scoreboard 4.54 of
# 8.1 cycles an issue, the issue slots 45% busy.  Since then the skew form's L2 prefetch of the
# next k-tile is the library's choice (`--l2-prefetch D` overrides it; 0: none).  So this pass,
# each form checked against float64 on the GPU first:
# - bf16 4097x8191 x3 (the skew form, 4 splits, 8 k-tiles a block, 16 warps an SM of 106
#   registers): def (the prefetch 1 ahead: before each whole k-tile's loads one
#   prefetch.global.L2 a lane for the warp's 8 rows' next k-tile, 32 lines of 128 bytes)
#   against pf0 (none, the default before) and pf2 (2 ahead);
#   ep1: the default and CUTEC_GEMV_TRIAL=early, each warp asking L2 for its rows' first two whole
#   k-tiles (64 KB a block) before griddepcontrol.wait, so that the first rounds after the
#   previous grid's end (its one-launch sums, its flush) hit L2 (a prefetch moves nothing to the
#   thread: it may precede the wait); xp1: the default and CUTEC_GEMV_TRIAL=xvec, x read in each whole
#   k-tile but the split's last as aligned 8-byte vectors (3 loads a vector and lane, not 8 of 2
#   bytes), its 8 elements picked out by 5 selects and 4 prmt (x's misalignment, uniform in the
#   warp, from the library's argument), 128 registers (2 blocks an SM, no spill).
# - f32 5x100000 x3 (391 splits of 2 k-tiles, one launch): u4 (CUTEC_GEMV_TRIAL=u4: where K
#   splits in one launch, 4 vectors a lane and row a k-tile: 196 k-tiles of 512 columns, so 196
#   splits of one k-tile, its loads at once, and 25 partials a thread in the last block: the
#   loop unrolled 16 times and 9 more); sc
#   (sumc: the last block's partials in rounds of 32 plain loads at once, those past the end
#   reading the last again: 49 a thread in 2 rounds, not 4); su4: u4 and sumc.
# Then each form against the default in processes in turns (default, form, ..., default, form,
# ...; `cutec bench gemv --forms lib,lib,lib`: three readings a process, beside the device copy
# of the same bytes; ncu's metrics of the 5x100000 rows kernel first, its duration against a
# call's 5.7-7 us), then the decisions.
# The rule per form (GB/s, the mean of its readings against the default's, r; r1 and r2 each
# turn's): a WRONG reading or a failed check -> "delete (wrong)"; r >= 1.02 and r1, r2 > 1 ->
# "adopt"; r <= 0.99 -> "delete (slower)"; else "delete (within the spread)"; the % of the copy
# (the means) beside it and the issue's 70%; the default's line against pf0 ("def against pf0":
# the same rule, pf0 the base: "adopt" confirms the prefetch, "delete" reverts it).
#   BUDGET=50 sh scripts/device-odd42.sh
. scripts/device-common.sh
log="$out/odd42.log"
start=$(date +%s)
budget=${BUDGET:-50}
# checked WHAT TAG TRIAL CMD...: CMD's verdict line under CUTEC_GEMV_TRIAL=TRIAL; TAG (the
# form's name in the turns) added to $bad unless verified (and, where it checks them, the same
# bits twice)
checked()
{
    what=$1 tag=$2 tr=$3
    shift 3
    device_late run "$what" && return
    r=$(CUTEC_GEMV_TRIAL=$tr timeout 15 "$@" 2>&1 | grep -E "verified|FAIL|rror|NOT the same|refus|WRONG" | head -n 3 | tr '\n' ' ')
    echo "run $what: $r"
    if ! echo "$r" | grep -q "verified" || echo "$r" | grep -qE "NOT the same|FAIL|WRONG"; then
        echo "   ^ FAILED"
        bad="$bad $tag"
    fi
}
# turn FILE TAG TRIAL ARGS: one process, `cutec bench gemv --iters 20 --vectors 3 --forms
# lib,lib,lib ARGS` under CUTEC_GEMV_TRIAL=TRIAL, its rows printed as "TAG: row" and kept in FILE
# as "TAG TURN GBS PCT" (GBS "W" where WRONG or failed); TURN counts TAG's processes
turn()
{
    file=$1 tag=$2 tr=$3
    shift 3
    device_late "$tag $*" && return
    n=$(awk -v t="$tag" '$1 == t { if ($2 > m) m = $2 } END { print m + 1 }' "$file" 2>/dev/null || echo 1)
    CUTEC_GEMV_TRIAL=$tr timeout 15 build/cutec bench gemv --iters 20 --vectors 3 --forms lib,lib,lib "$@" >"$out/turn.txt" 2>&1
    awk -v tag="$tag" -v n="$n" -v file="$file" '
        !/^#/ && (/N=[0-9]/ || /failed|rror/) { print tag ": " $0
            if ($0 ~ /WRONG|failed|rror/) { print tag, n, "W", "W" >> file; next }
            p = $NF; sub("%", "", p); print tag, n, $(NF - 2), p >> file; next }' "$out/turn.txt"
}
# turns FILE DTYPE SHAPE FORM...: two turns of one process a FORM ("TAG TRIAL [ARGS]") in order
turns()
{
    tf=$1 d=$2 s=$3
    shift 3
    : >"$tf"
    for t in 1 2; do
        echo "-- turn $t"
        for form in "$@"; do
            # shellcheck disable=SC2086 # (the form's words)
            turn "$tf" $form --dtype "$d" --shape "$s"
        done
    done
}
# decide FILE ROW FORM [BASE]: the rule's line for FORM against BASE ("def" unless given) in FILE
# (wrong where a check of FORM or of BASE failed, or a reading of either said WRONG)
decide()
{
    awk -v row="$2" -v form="$3" -v base="${4:-def}" -v bad="${bad:-}" '
        $3 == "W" { w[$1] = 1; next }
        { g[$1] += $3; p[$1] += $4; c[$1]++; gt[$1, $2] += $3; ct[$1, $2]++ }
        END {
            failed = index(bad " ", " " form " ") || index(bad " ", " " base " ")
            what = base == "def" ? "" : " against " base
            if (w[form] || w[base] || failed) { print "decides: " row ": " form what ": delete (wrong" (failed ? "; failed checks:" bad : "") ")"; exit }
            if (!ct[form, 1] || !ct[form, 2] || !ct[base, 1] || !ct[base, 2]) { print "decides: " row ": " form what ": not timed (two turns each)"; exit }
            r = (g[form] / c[form]) / (g[base] / c[base])
            r1 = (gt[form, 1] / ct[form, 1]) / (gt[base, 1] / ct[base, 1]); r2 = (gt[form, 2] / ct[form, 2]) / (gt[base, 2] / ct[base, 2])
            v = r >= 1.02 && r1 > 1 && r2 > 1 ? "adopt" : r <= 0.99 ? "delete (slower)" : "delete (within the spread)"
            printf "decides: %s: %s%s: %s (GB/s %.4f of %s, by turn %.4f %.4f; %.1f against %.1f GB/s; %.2f%% of the copy against %.2f%%; the issue'"'"'s 70%%: %s)\n",
                row, form, what, v, r, base, r1, r2, g[form] / c[form], g[base] / c[base], p[form] / c[form], p[base] / c[base],
                (p[form] / c[form] >= 70 ? "met" : "not met") }' "$1"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        bad=
        echo "== each form on the GPU against float64 (every element; the same bits twice) $(el_s)"
        bf="--iters 5 --dtype bf16 --shape 4097x8191 --vectors 3"
        ff="--iters 5 --dtype f32 --shape 5x100000 --vectors 3"
        # shellcheck disable=SC2086 # ($bf, $ff: the options' words)
        {
            checked "bf16 4097x8191 x3, the default (L2 prefetch 1)" def 0 build/cutec run gemv $bf
            checked "bf16 4097x8191 x3, L2 prefetch 0" pf0 0 build/cutec run gemv $bf --l2-prefetch 0
            checked "bf16 4097x8191 x3, L2 prefetch 2" pf2 0 build/cutec run gemv $bf --l2-prefetch 2
            checked "bf16 4097x8191 x3, early" ep1 early build/cutec run gemv $bf
            checked "bf16 4097x8191 x3, xvec" xp1 xvec build/cutec run gemv $bf
            checked "f32 5x100000 x3, sumc" sc sumc build/cutec run gemv $ff
            checked "f32 5x100000 x3, u4" u4 u4 build/cutec run gemv $ff
            checked "f32 5x100000 x3, sumc and u4" su4 sumc,u4 build/cutec run gemv $ff
        }
        echo "== ncu: the rows kernel at f32 5x100000 x3, the default, one launch $(el_s)"
        m=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
        for st in long_scoreboard barrier membar wait; do
            m=$m,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio
        done
        # (ncu replays the kernel: about 5 s)
        if [ $(($(date +%s) - start + 5)) -gt "$budget" ]; then
            echo "-- skipped (5 s short of BUDGET_S): ncu"
        else
            # shellcheck disable=SC2086 # ($ff's words)
            timeout 10 ncu --metrics "$m" -k "regex:rows" --launch-skip 2 -c 1 build/cutec run gemv $ff 2>&1 |
                grep -E "__|_kernel|rror" | head -n 12
        fi
        echo "== f32 5x100000 x3: the default, u4, sc, su4 in processes in turns $(el_s)"
        f=$out/f32-5.turns
        turns "$f" f32 5x100000 "def 0" "u4 u4" "sc sumc" "su4 sumc,u4"
        echo "== bf16 4097x8191 x3: the default (pf1), pf0, pf2, ep1, xp1 in processes in turns $(el_s)"
        b=$out/bf16-4097.turns
        turns "$b" bf16 4097x8191 "def 0" "pf0 0 --l2-prefetch 0" "pf2 0 --l2-prefetch 2" "ep1 early" "xp1 xvec"
        echo "== at $(el) s"
        decide "$b" "bf16 4097x8191 x3" def pf0
        for form in pf2 ep1 xp1; do decide "$b" "bf16 4097x8191 x3" $form; done
        for form in u4 sc su4; do decide "$f" "f32 5x100000 x3" $form; done
        decide "$f" "f32 5x100000 x3" su4 u4
    else
        echo "== no GPU here: every GPU step skipped"
    fi
    device_end
} 2>&1 | tee "$log"
