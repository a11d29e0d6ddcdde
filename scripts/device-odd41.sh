#!/bin/sh
# The mid pass of branch odd41 on one H200 (issue 17: 4097x3x8191 and 3x5x100000 at 70% of the
# copy), under 50 s of GPU work after the lead's `make all tests` (nothing is built here); log
# $OUT/odd41.log.
# The count (bench/RESULTS.md, odd41): 3x5x100000 moves 1.6 MB (bf16; 3.2 MB f32), which a
# device copy does in ~9.6 us back to back (its "copy GB/s" counts read and write: 330 / 665
# GB/s), so 70% of the copy is ~6.9 us a call, and a call of ours is two launches (the
# splitting kernel, 391 / 782 splits, then the reduction, PDL): two cuLaunchKernel of ~3.3 us of
# the host each, 9.6-12 us measured.  4097x3x8191 bf16 (67 MB) ran 28 us against the copy's 36
# (64.2%): its second kernel (4 splits) is 2-3 us of it.
# The form: CUTEC_GEMV_ONE_LAUNCH=1, split-K in one launch: each block writes its partial sums,
# a fence, a counter a row group; the block that counts last adds the parts in split order
# (the same tree as the second kernel's: the same bits) and writes y.
# This pass: `cutec run gemv` under the form on the GPU against float64 (every element) at the
# four rows, an odd size and the atomic reduction, then `cutec bench gemv` at the four rows (bf16 and f32, 5x100000
# and 4097x8191 with 3 vectors) default / form / default / form, each its own process, beside the
# device copy of the same bytes; then, if time is left, the atomic reduction (two launches / one)
# and the one launch's split counts.
# The rule per row (points of the copy, d = form - default, each round's pair): a WRONG row or a
# failed check -> "revert (wrong)"; mean d >= 1 and d > 0 in both rounds -> "form wins"; mean d
# <= -1 -> "form loses"; else "within the spread".  Overall: wins at one row or more and loses at
# none -> "make the one launch the default"; loses anywhere and wins nowhere -> "delete it";
# else "the default where it wins (its rows named)".
#   BUDGET=50 sh scripts/device-odd41.sh
. scripts/device-common.sh
log="$out/odd41.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=${GEMV_TIMEOUT:-8}
# row ONE DTYPE SHAPE [ARGS]: the bench row of `cutec bench gemv --dtype DTYPE --shape SHAPE
# --vectors 3 ARGS` under CUTEC_GEMV_ONE_LAUNCH=ONE, printed; its % of the copy in $pct ("W"
# wrong or failed, "" skipped)
row()
{
    one=$1 d=$2 s=$3
    shift 3
    pct=
    device_late "one=$one $d $s $*" && return
    r=$(CUTEC_GEMV_ONE_LAUNCH=$one device_gemv --dtype "$d" --shape "$s" --vectors 3 "$@" | tail -n 1)
    echo "one=$one $d $s $*: $r"
    pct=$(copy_pct "$r")
    [ -z "$pct" ] && pct=W
    return 0
}
# checked DTYPE SHAPE [ARGS]: `cutec run gemv` under the form on the GPU, every element against
# float64; bad=1 unless verified with 0 wrong
checked()
{
    device_late run "$@" && return
    d=$1 s=$2
    shift 2
    r=$(CUTEC_GEMV_ONE_LAUNCH=1 timeout 10 build/cutec run gemv --iters 5 --dtype "$d" --shape "$s" --vectors 3 "$@" 2>&1 | tail -n 1)
    echo "run one=1 $d $s $*: $r"
    echo "$r" | grep -q "verified against float64 (0 wrong" || { echo "   ^ FAILED"; bad=1; }
}
# decide NAME A1 B1 A2 B2: the rule's line for one row (A the default, B the form)
decide()
{
    awk -v f="$1" -v a1="$2" -v b1="$3" -v a2="$4" -v b2="$5" 'BEGIN {
        if (a1 b1 a2 b2 ~ /W/) { print "decides: " f ": revert (wrong)"; exit }
        if (a1 == "" || b1 == "" || a2 == "" || b2 == "") { print "decides: " f ": not timed"; exit }
        d1 = b1 - a1; d2 = b2 - a2; m = (d1 + d2) / 2
        v = m >= 1 && d1 > 0 && d2 > 0 ? "form wins" : m <= -1 ? "form loses" : "within the spread"
        printf "decides: %s: %s (%+.2f points: default %.1f / %.1f, one launch %.1f / %.1f)\n", f, v, m, a1, a2, b1, b2 }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the form on the GPU against float64 (every element) $(el_s)"
        bad=
        checked bf16 5x100000
        checked f32 5x100000
        checked bf16 4097x8191
        checked f32 4097x8191
        checked bf16 7x9001
        checked bf16 5x100000 --reduction atomic
        echo "== the four rows, default / one launch in turns $(el_s)"
        : >"$out/odd41.dec"
        for s in 5x100000 4097x8191; do
            for d in bf16 f32; do
                row 0 "$d" "$s" && a1=$pct
                row 1 "$d" "$s" && b1=$pct
                row 0 "$d" "$s" && a2=$pct
                row 1 "$d" "$s" && b2=$pct
                [ -n "$bad" ] && b1=W
                decide "$d $s x3" "$a1" "$b1" "$a2" "$b2" | tee -a "$out/odd41.dec"
            done
        done
        echo "== the atomic (non-deterministic) reduction, two launches / one $(el_s)"
        row 0 bf16 5x100000 --reduction atomic
        row 1 bf16 5x100000 --reduction atomic
        row 0 f32 5x100000 --reduction atomic
        row 1 f32 5x100000 --reduction atomic
        echo "== the one launch's splits (the library's: 391 bf16 / 782 f32 at 5x100000, 4 at 4097x8191) $(el_s)"
        row 1 bf16 5x100000 --splits 196
        row 1 bf16 5x100000 --splits 132
        row 1 f32 5x100000 --splits 391
        row 1 f32 5x100000 --splits 196
        row 1 bf16 4097x8191 --splits 2
        row 1 bf16 4097x8191 --splits 8
        echo "== at $(el) s"
        awk '/form wins/ { w = w " " $2 " " $3 } /form loses|wrong/ { l = l " " $2 " " $3 }
            END { if (w != "" && l == "") print "decides: overall: make the one launch the default (wins at" w ")"
                  else if (w == "" && l != "") print "decides: overall: delete it (loses at" l ")"
                  else if (w == "") print "decides: overall: delete it (no row won)"
                  else print "decides: overall: the default where it wins (" w " ), not at" l }' "$out/odd41.dec"
        grep "^decides" "$out/odd41.dec"
    else
        echo "== no GPU here: every GPU step skipped"
    fi
    device_end
} 2>&1 | tee "$log"
