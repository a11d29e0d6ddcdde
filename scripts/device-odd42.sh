#!/bin/sh
# The last pass of branch odd42 on one H200 (issue 17: 4097x3x8191 bf16 at 70% of the copy), under
# 50 s of GPU work after the lead's `make all tests` (nothing is built here); log $OUT/odd42.log.
# The final pass (17:13-17:15 UTC, /work/notes/final42/odd42.txt) confirmed the skew form's L2
# prefetch of the next k-tile (65.2% of the copy against 63.15% without, 1.031x in turns) and
# timed `early` once (its check and one turn, its second turn past the budget): each warp asking
# L2 for its rows' first two whole k-tiles before griddepcontrol.wait, 25.9-26.1 us a call against
# the default's 28.1-28.3, 70.4-71.2% of the copy.  It is the default since (CUTEC_GEMV_EARLY=0:
# the prefetch after the wait); this pass confirms it: every form checked against float64 on the
# GPU first (the default at 4097x8191, odd shapes of the skew form, f16, the GEMM's route, and
# CUTEC_GEMV_EARLY=0), then the default and CUTEC_GEMV_EARLY=0 in processes in turns, three turns
# (`cutec bench gemv --forms lib,lib,lib` a process, beside the device copy of the same bytes).
# The rule (GB/s, the mean of the default's readings against e0's, r; r1..r3 each turn's): a
# WRONG reading or a failed check -> "revert (wrong)"; r >= 1.02 and every turn's > 1 ->
# "confirmed"; r <= 0.99 -> "revert"; else "within the spread (keep)"; the % of the copy beside
# it and the 70%.
#   BUDGET=50 sh scripts/device-odd42.sh
. scripts/device-common.sh
log="$out/odd42.log"
# shellcheck disable=SC2034 # (start and budget: device_late's, device-common.sh)
start=$(date +%s) budget=${BUDGET:-50}
# checked WHAT TAG ENV CMD...: CMD's verdict line under the environment ENV (NAME=VALUE, or - for
# none); TAG (the form's name in the turns) added to $bad unless verified (and, where it checks
# them, the same bits twice)
checked()
{
    what=$1 tag=$2 ev=$3
    shift 3
    [ "$ev" = - ] && ev=CUTEC_NONE=
    device_late run "$what" && return
    r=$(env "$ev" timeout 15 "$@" 2>&1 | grep -E "verified|FAIL|rror|NOT the same|refus|WRONG" | head -n 3 | tr '\n' ' ')
    echo "run $what: $r"
    if ! echo "$r" | grep -q "verified" || echo "$r" | grep -qE "NOT the same|FAIL|WRONG"; then
        echo "   ^ FAILED"
        bad="$bad $tag"
    fi
}
# turn FILE TAG ENV ARGS: one process, `cutec bench gemv --iters 20 --vectors 3 --forms
# lib,lib,lib ARGS` under the environment ENV (NAME=VALUE, or - for none), its rows printed as
# "TAG: row" and kept in FILE as "TAG TURN GBS PCT" (GBS "W" where WRONG or failed); TURN counts
# TAG's processes
turn()
{
    file=$1 tag=$2 ev=$3
    shift 3
    [ "$ev" = - ] && ev=CUTEC_NONE=
    device_late "$tag $*" && return
    n=$(awk -v t="$tag" '$1 == t { if ($2 > m) m = $2 } END { print m + 1 }' "$file" 2>/dev/null || echo 1)
    env "$ev" timeout 15 build/cutec bench gemv --iters 20 --vectors 3 --forms lib,lib,lib "$@" >"$out/turn.txt" 2>&1
    awk -v tag="$tag" -v n="$n" -v file="$file" '
        !/^#/ && (/N=[0-9]/ || /failed|rror/) { print tag ": " $0
            if ($0 ~ /WRONG|failed|rror/) { print tag, n, "W", "W" >> file; next }
            p = $NF; sub("%", "", p); print tag, n, $(NF - 2), p >> file; next }' "$out/turn.txt"
}
# turns FILE DTYPE SHAPE FORM...: three turns of one process a FORM ("TAG ENV [ARGS]") in order
turns()
{
    tf=$1 d=$2 s=$3
    shift 3
    : >"$tf"
    for t in 1 2 3; do
        echo "-- turn $t"
        for form in "$@"; do
            # shellcheck disable=SC2086 # (the form's words)
            turn "$tf" $form --dtype "$d" --shape "$s"
        done
    done
}
# decide FILE ROW FORM BASE: the rule's line for FORM (the default) against BASE in FILE (wrong
# where a check of either failed, or a reading of either said WRONG)
decide()
{
    awk -v row="$2" -v form="$3" -v base="$4" -v bad="${bad:-}" '
        $3 == "W" { w[$1] = 1; next }
        { g[$1] += $3; p[$1] += $4; c[$1]++; gt[$1, $2] += $3; ct[$1, $2]++ }
        END {
            failed = index(bad " ", " " form " ") || index(bad " ", " " base " ")
            if (w[form] || w[base] || failed) { print "decides: " row ": " form " against " base ": revert (wrong" (failed ? "; failed checks:" bad : "") ")"; exit }
            every = 1; turns = ""
            for (t = 1; t <= 3; t++) {
                if (!ct[form, t] || !ct[base, t]) { print "decides: " row ": " form " against " base ": not timed (three turns each)"; exit }
                rt = (gt[form, t] / ct[form, t]) / (gt[base, t] / ct[base, t]); every = every && rt > 1; turns = turns sprintf(" %.4f", rt)
            }
            r = (g[form] / c[form]) / (g[base] / c[base])
            v = r >= 1.02 && every ? "confirmed" : r <= 0.99 ? "revert" : "within the spread (keep)"
            printf "decides: %s: %s against %s: %s (GB/s %.4f of %s, by turn%s; %.1f against %.1f GB/s; %.2f%% of the copy against %.2f%%; the issue'"'"'s 70%%: %s)\n",
                row, form, base, v, r, base, turns, g[form] / c[form], g[base] / c[base], p[form] / c[form], p[base] / c[base],
                (p[form] / c[form] >= 70 ? "met" : "not met") }' "$1"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        bad=
        echo "== the default and CUTEC_GEMV_EARLY=0 on the GPU against float64 (every element; the same bits twice) $(el_s)"
        rg="build/cutec run gemv --iters 5 --vectors 3"
        # shellcheck disable=SC2086 # ($rg: the command's words)
        {
            checked "bf16 4097x8191 x3, the default (early)" def - $rg --dtype bf16 --shape 4097x8191
            checked "bf16 4097x8191 x3, CUTEC_GEMV_EARLY=0" e0 CUTEC_GEMV_EARLY=0 $rg --dtype bf16 --shape 4097x8191
            checked "bf16 37x3001 x3, the default" def - $rg --dtype bf16 --shape 37x3001
            checked "f16 7x9001 x3, the default" def - $rg --dtype f16 --shape 7x9001
            checked "bf16 4097x8191 x1, the default" def - $rg --dtype bf16 --shape 4097x8191 --vectors 1
            checked "f32 5x100000 x3, the default" def - $rg --dtype f32 --shape 5x100000
            checked "gemm bf16 tn 4097x3x8191 (the GEMV's route)" def - build/cutec run gemm --dtype bf16 --layout tn --m 4097 --n 3 --k 8191
        }
        echo "== bf16 4097x8191 x3: the default (early) and e0 (CUTEC_GEMV_EARLY=0) in processes in turns $(el_s)"
        b=$out/bf16-4097.turns
        turns "$b" bf16 4097x8191 "def -" "e0 CUTEC_GEMV_EARLY=0"
        echo "== at $(el) s"
        decide "$b" "bf16 4097x8191 x3" def e0
    else
        echo "== no GPU here: every GPU step skipped"
    fi
    device_end
} 2>&1 | tee "$log"
