#!/bin/sh
# epi39's pass (issue 15: e4m3 per-tensor --amax costs +5.52% at 8192^3, over the 3% mark), about
# 45 s on one H200 after `make all tests` (60 s at most: no step starts after 45 s or runs past 60); log $OUT/epi39.log.
# The count (cutec compile gemm ... --emit sass, sm_90a, amax alone; 128 x 256 tiles, four 64 x 64
# pieces a warpgroup a tile): the plain kernel has 1,744 SASS instructions, amax's tree (the
# default) 2,952, 168 registers each, no spill.  A piece's 32 bounds predicates (rows r, r + 8
# against M in 64 bits, 16 columns against N) are computed when the piece starts; ptxas packs
# them into registers (P2R, 67) and turns the first level of the tree (select |x| or 0, then
# the larger) into 16 branches a piece (BSSY/BSYNC); about 300 instructions a piece where the
# work is 32 |x| and 31 maxima.  `inside` (3,664) still packs every piece's predicates before its
# branch (about 100 instructions a piece) and keeps the branches for edge pieces.
# =edge (new, opt-in): the bounds computed in edge pieces only, masking |x|'s bits (an AND, no
# select); an inner piece is 32 FADD |x| and 25 VIMNMX(3) (3,328 instructions in all, no spill).
# This pass: `cutec run gemm` of each form against float64 on the GPU (every element; amax
# against the float64 max |x|) at odd sizes (edge pieces), then each form's cost at 8192^3 in
# turns with the plain kernel in one process (`cutec bench gemm --epilogue-cost`, the median of
# the rounds' ratios), then tree and edge once more where time is left (each form's mean).
# The rule: the lowest cost wins where it is 0.5 points or more under the tree's: it becomes
# the default (hopper_scales.c amax_form's default), every other form deleted; else the tree
# stays and inside and edge are deleted.  A form with a failed check is deleted ("wrong").
#   ROUNDS=20 BUDGET_S=45 sh scripts/device-epi39.sh
. scripts/device-common.sh
log="$out/epi39.log"
start=$(date +%s) budget=${BUDGET_S:-45}
# lim S: S seconds, or what is left of the 60 s cap if less (a step never runs past it)
lim() { l=$((60 - $(el))); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
rounds=${ROUNDS:-20}
cutec=${CUTEC:-build/cutec} # (a stand-in, to try the script without a GPU)
bad=" "
# check FORM ARGS: `cutec run gemm ARGS` under CUTEC_GEMM_AMAX=FORM: its verdict lines; a run
# with no "verified" line, a WRONG, or an amax line not ok puts FORM in $bad
check()
{
    f=$1
    shift
    device_late "check $f $*" && return
    CUTEC_GEMM_AMAX=$f timeout "$(lim 15)" $cutec run gemm --variant hopper --layout tn --dtype e4m3 --out-dtype bf16 --amax \
        "$@" >"$out/epi39.one" 2>&1
    echo "$f $*: $(grep -E '^verified|^amax|WRONG' "$out/epi39.one" | tr '\n' ' ')"
    if ! grep -q '^verified' "$out/epi39.one" || grep -q 'WRONG' "$out/epi39.one" ||
        ! grep -q '^amax: .*(ok' "$out/epi39.one"; then
        bad="$bad$f "
        echo "   ^ FAILED: $(tail -n 2 "$out/epi39.one" | tr '\n' ' ')"
    fi
}
# cost FORM: `cutec bench gemm --epilogue-cost` of e4m3 per-tensor amax at 8192^3 under
# CUTEC_GEMM_AMAX=FORM: its rows and cost line, the cost in time appended to $out/epi39-FORM.pct
# (nothing where a row is not ok: FORM in $bad)
cost()
{
    device_late "cost $1" && return
    echo "-- CUTEC_GEMM_AMAX=$1 $(el_s)"
    CUTEC_GEMM_AMAX=$1 timeout "$(lim 20)" stdbuf -oL -eL $cutec bench gemm --variants hopper --layout tn --sizes 8192 \
        --seed 39 --iters "$rounds" --dtype e4m3 --out-dtype bf16 --scale tensor --amax --epilogue-cost \
        >"$out/epi39.one" 2>&1
    grep -E '^8192|^cost|WRONG|rror' "$out/epi39.one"
    if grep -E '^8192' "$out/epi39.one" | grep -qv ' ok'; then
        bad="$bad$1 "
        echo "   ^ a row not ok"
        return
    fi
    sed -n 's/^cost .*: time \([-+0-9.]*\)%.*/\1/p' "$out/epi39.one" | tr -d '+' >>"$out/epi39-$1.pct"
}
# mean FORM: the mean of FORM's costs ("" where none)
mean() { awk '{ s += $1; n++ } END { if (n) printf "%.2f", s / n }' "$out/epi39-$1.pct" 2>/dev/null; }
{
    device_head
    rm -f "$out"/epi39-*.pct
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing checked or timed"
        echo "decides: amax: keep tree the default, inside and edge opt-in (no GPU)"
    else
        echo "== the GPU against float64, every element, edge pieces $(el_s)"
        for f in tree inside edge; do check $f --scale tensor --m 520 --n 1000 --k 272; done
        check edge --scale block --beta 0.5 --m 1000 --n 520 --k 512
        check edge --scale tensor --epilogue bias --bias col --out-scale 0.5 --m 776 --n 1032 --k 200
        echo "== e4m3 per-tensor amax at 8192^3, each form in turns with the plain kernel, $rounds rounds $(el_s)"
        for f in tree edge inside tree edge; do
            case "$bad" in *" $f "*) continue ;; esac
            cost $f
        done
        t=$(mean tree) i=$(mean inside) e=$(mean edge)
        echo "figure: 8192^3 e4m3 per-tensor amax over the plain kernel: tree ${t:-?}% ($(tr '\n' ' ' <"$out/epi39-tree.pct" 2>/dev/null)), inside ${i:-?}% ($(tr '\n' ' ' <"$out/epi39-inside.pct" 2>/dev/null)), edge ${e:-?}% ($(tr '\n' ' ' <"$out/epi39-edge.pct" 2>/dev/null))"
        awk -v t="$t" -v i="$i" -v e="$e" -v bad="$bad" 'BEGIN {
            if (index(bad, " tree ")) { print "decides: amax: the tree failed a check: revert to main (wrong)"; exit }
            if (t == "") { print "decides: amax: no figure for the tree: keep tree the default, inside and edge opt-in"; exit }
            w = "tree"; c = t
            if (e != "" && !index(bad, " edge ") && e + 0 < c + 0) { w = "edge"; c = e }
            if (i != "" && !index(bad, " inside ") && i + 0 < c + 0) { w = "inside"; c = i }
            if (w != "tree" && t - c >= 0.5) {
                printf("decides: amax: make %s the default (%.2f%% against the tree'"'"'s %.2f%%): hopper_scales.c amax_form AMAX_TREE -> AMAX_%s, tree and %s deleted\n",
                       w, c, t, toupper(w), w == "edge" ? "inside" : "edge")
            } else {
                printf("decides: amax: keep tree the default (%.2f%%; inside %s, edge %s): inside and edge deleted\n", t, i == "" ? "?" : i, e == "" ? "?" : e)
                c = t
            }
            printf("decides: amax at 8192^3 costs %.2f%%: %s\n", c, c < 3 ? "under 3% (issue 15 met)" : "3% or more (issue 15 not met)") }'
    fi
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>/dev/null
} >"$log" 2>&1
cat "$log"
