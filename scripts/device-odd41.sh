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
# The forms (`cutec bench gemv --forms`, CUTEC_GEMV_ONE_LAUNCH): "two" the default (split-K's
# second kernel), "one" split-K in one launch (each block writes its partials, a fence, a counter
# a row group; the block that counts last adds the parts in a fixed order and writes y), "pdl"
# the same as a programmatic dependent launch (each block waits for the stream's previous grid,
# then lets the next call's grid in: the launch overlaps the previous call's end).
# This pass: `cutec run gemv` on the GPU against float64 (every element) of the forms at an odd
# size and of the atomic reduction in one launch; then at the four rows (bf16 and f32,
# 5x100000 and 4097x8191 with 3 vectors) two processes, each timing the forms in turns
# (two,one,pdl,two,one,pdl, then the reverse), beside the device copy of the same bytes after each
# row, each form's first row checked against float64; then, if time is left, the atomic
# reduction and the one launch's split counts.
# The rule per row and form (points of the copy, d = form - two, its four readings' mean against
# two's; d1 d2 each process's): a WRONG row or a failed check -> "revert (wrong)"; d >= 1 and d1,
# d2 > 0 -> "wins"; d <= -1 -> "loses"; else "within the spread".  Overall for each form: wins at
# one row or more and loses at none -> "make it the default" (pdl over one where both do and pdl
# is ahead of one by a point); loses anywhere and wins nowhere -> "delete it"; else "the default
# where it wins".
#   BUDGET=50 sh scripts/device-odd41.sh
. scripts/device-common.sh
log="$out/odd41.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=${GEMV_TIMEOUT:-10}
# forms NAME DTYPE SHAPE FORMS [ARGS]: `cutec bench gemv --forms FORMS` at SHAPE with 3 vectors,
# its rows printed (each "FORM: row") and kept in $out/NAME ("FORM PCT" a line, PCT "W" where
# WRONG or failed)
forms()
{
    name=$1 d=$2 s=$3 f=$4
    shift 4
    : >"$out/$name"
    device_late "$name" && return
    echo "-- $d $s --forms $f $*"
    device_gemv --dtype "$d" --shape "$s" --vectors 3 --forms "$f" "$@" >"$out/$name.txt"
    awk -v forms="$f" -v file="$out/$name" 'BEGIN { n = split(forms, F, ",") }
        /N=[0-9]/ || /failed/ { k++; p = "W"
            if ($0 !~ /WRONG|failed/) for (i = NF; i > 0; i--) if ($i ~ /^[0-9.]+%$/) { p = $i; sub("%", "", p); break }
            print F[k] ": " $0; print F[k], p > file; next }
        { print }' "$out/$name.txt"
}
# checked DTYPE SHAPE ONE [ARGS]: `cutec run gemv` under CUTEC_GEMV_ONE_LAUNCH=ONE on the GPU,
# every element against float64; bad=1 unless verified with 0 wrong
checked()
{
    d=$1 s=$2 one=$3
    shift 3
    device_late run "$d" "$s" && return
    r=$(CUTEC_GEMV_ONE_LAUNCH=$one timeout 10 build/cutec run gemv --iters 5 --dtype "$d" --shape "$s" --vectors 3 "$@" 2>&1 | tail -n 1)
    echo "run one=$one $d $s $*: $r"
    echo "$r" | grep -q "verified against float64 (0 wrong" || { echo "   ^ FAILED"; bad=1; }
}
# decide ROW FORM BASE A B: the rule's line for FORM against BASE (two, the default) at ROW from
# the files A and B (one process each)
decide()
{
    awk -v row="$1" -v f="$2" -v b="$3" -v bad="${bad:-}" '
        FNR == 1 { pn++ }
        { if ($2 == "W") w[$1] = 1; else { s[$1, pn] += $2; c[$1, pn]++; S[$1] += $2; C[$1]++ } }
        END {
            if (w[f] || bad != "") { print "decides: " row " " f ": revert (wrong)"; exit }
            if (w[b]) { print "decides: " row " " f ": not decided (" b " WRONG)"; exit }
            if (!c[f, 1] || !c[b, 1] || !c[f, 2] || !c[b, 2]) { print "decides: " row " " f ": not timed"; exit }
            d = S[f] / C[f] - S[b] / C[b]
            d1 = s[f, 1] / c[f, 1] - s[b, 1] / c[b, 1]; d2 = s[f, 2] / c[f, 2] - s[b, 2] / c[b, 2]
            v = d >= 1 && d1 > 0 && d2 > 0 ? "wins" : d <= -1 ? "loses" : "within the spread"
            printf "decides: %s %s: %s against %s (%+.2f points: %s %.2f, %s %.2f; by process %+.2f %+.2f)\n", row, f, v, b, d, f, S[f] / C[f], b, S[b] / C[b], d1, d2 }' "$4" "$5"
}
# overall FORM: the overall line for FORM from the rows' lines
overall()
{
    awk -v f="$1" '$4 == f ":" && /wins/ { w = w " " $2 " " $3 } $4 == f ":" && /loses|wrong/ { l = l " " $2 " " $3 }
        END { if (w != "" && l == "") print "decides: " f " overall: make it the default (wins at" w ")"
              else if (w == "" && l != "") print "decides: " f " overall: delete it (loses at" l ")"
              else if (w == "") print "decides: " f " overall: delete it (no row won)"
              else print "decides: " f " overall: the default where it wins (" w " ), not at" l }' "$out/odd41.dec"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the forms on the GPU against float64 (every element) $(el_s)"
        bad=
        checked bf16 7x9001 1
        checked bf16 7x9001 pdl
        checked f32 5x100000 pdl --reduction atomic
        echo "== the four rows, the forms in turns in one process, twice $(el_s)"
        : >"$out/odd41.dec"
        : >"$out/odd41.pdl"
        for s in 5x100000 4097x8191; do
            for d in bf16 f32; do
                forms "$d-$s-1" "$d" "$s" two,one,pdl,two,one,pdl
                forms "$d-$s-2" "$d" "$s" pdl,one,two,pdl,one,two
                for f in one pdl; do
                    decide "$d $s" "$f" two "$out/$d-$s-1" "$out/$d-$s-2" | tee -a "$out/odd41.dec"
                done
                decide "$d $s" pdl one "$out/$d-$s-1" "$out/$d-$s-2" | tee -a "$out/odd41.pdl"
            done
        done
        echo "== the atomic (non-deterministic) reduction, two launches / one $(el_s)"
        forms atomic-bf16 bf16 5x100000 two,one,pdl --reduction atomic
        forms atomic-f32 f32 5x100000 two,one,pdl --reduction atomic
        echo "== the one launch's splits (the library's: 391 bf16 / 782 f32 at 5x100000, 4 at 4097x8191) $(el_s)"
        forms splits-bf16-196 bf16 5x100000 one,pdl --splits 196
        forms splits-bf16-132 bf16 5x100000 one,pdl --splits 132
        forms splits-f32-391 f32 5x100000 one,pdl --splits 391
        forms splits-4097-2 bf16 4097x8191 one,pdl --splits 2
        forms splits-4097-8 bf16 4097x8191 one,pdl --splits 8
        echo "== at $(el) s"
        cat "$out/odd41.dec" "$out/odd41.pdl"
        overall one
        overall pdl
    else
        echo "== no GPU here: every GPU step skipped"
    fi
    device_end
} 2>&1 | tee "$log"
