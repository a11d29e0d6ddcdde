#!/bin/sh
# epi39's pass (issue 15: e4m3 per-tensor --amax costs +5.5-6.4% at 8192^3, over the 3% mark),
# about 35 s on one H200 after `make all tests` (60 s at most: no step starts after 45 s or runs
# past 60); log $OUT/epi39.log.
# The count (cutec compile gemm ... --emit sass, sm_90a, amax alone; 128 x 256 tiles, four 64 x 64
# pieces a warpgroup a tile): the plain kernel has 1,744 SASS instructions, amax's tree (the
# default) 2,952, 168 registers each, no spill.  A piece's 32 bounds predicates (rows r, r + 8
# against M in 64 bits, 16 columns against N) are computed when the piece starts; ptxas packs
# them into registers (P2R, 67) and turns the first level of the tree (select |x| or 0, then
# the larger) into 16 branches a piece (BSSY/BSYNC); about 300 instructions a piece where the
# work is 32 |x| and 31 maxima.
# =edge (opt-in): the bounds computed in edge pieces only, masking |x|'s bits (an AND, no
# select); an inner piece is 32 FADD |x| and 25 VIMNMX(3) (3,328 instructions in all, no spill).
# The mid pass (08:35, H200): tree +5.71% and +7.09%, inside +6.47% (deleted); edge not timed
# (this script's bias check asked K = 200, whose e4m3 rows are not 16-byte aligned: refused for
# every form, and taken for edge's failure).
# This pass: `cutec run gemm` of each form against float64 on the GPU (every element; amax
# against the float64 max |x|) at odd sizes (edge pieces; K a multiple of 16, as TMA asks of
# e4m3 rows), then each form's cost at 8192^3 in turns with the plain kernel in one process
# (`cutec bench gemm --epilogue-cost`, the median of the rounds' ratios), tree and edge by
# turns, three times each where time is left (each form's mean).
# The rule: edge becomes the default where its mean is 1 point or more under the tree's
# (hopper_scales.c amax_form's default AMAX_TREE -> AMAX_EDGE, the tree deleted), else it is
# deleted.  A form with a failed check is deleted ("wrong").
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
        echo "   ^ FAILED: $(head -n 1 "$out/epi39.one" | cut -c1-300) ... $(tail -n 1 "$out/epi39.one")"
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
    sed -n 's/^cost .*: time \([-+]*[0-9][0-9.]*\)%.*/\1/p' "$out/epi39.one" | tr -d '+' >>"$out/epi39-$1.pct"
}
# mean FORM: the mean of FORM's costs ("" where none)
mean() { awk '{ s += $1; n++ } END { if (n) printf "%.2f", s / n }' "$out/epi39-$1.pct" 2>/dev/null; }
{
    device_head
    rm -f "$out"/epi39-*.pct
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing checked or timed"
        echo "decides: amax edge: keep opt-in (no GPU)"
    else
        echo "== the GPU against float64, every element, edge pieces $(el_s)"
        for f in tree edge; do
            check $f --scale tensor --m 520 --n 1000 --k 272
            check $f --scale tensor --epilogue bias --bias col --out-scale 0.5 --m 776 --n 1032 --k 208
        done
        check edge --scale block --beta 0.5 --m 1000 --n 520 --k 512
        echo "== e4m3 per-tensor amax at 8192^3, each form in turns with the plain kernel, $rounds rounds $(el_s)"
        for f in tree edge tree edge tree edge; do
            case "$bad" in *" $f "*) continue ;; esac
            cost $f
        done
        t=$(mean tree) e=$(mean edge)
        echo "figure: 8192^3 e4m3 per-tensor amax over the plain kernel: tree ${t:-?}% ($(tr '\n' ' ' <"$out/epi39-tree.pct" 2>/dev/null)), edge ${e:-?}% ($(tr '\n' ' ' <"$out/epi39-edge.pct" 2>/dev/null))"
        awk -v t="$t" -v e="$e" -v bad="$bad" 'BEGIN {
            if (index(bad, " tree ")) { print "decides: amax: the tree failed a check: the epilogue'"'"'s owner to look at (wrong)"; exit }
            if (index(bad, " edge ")) { print "decides: amax edge: delete (wrong)"; exit }
            if (t == "" || e == "") { print "decides: amax edge: keep opt-in (no figure)"; exit }
            if (t - e >= 1) {
                printf("decides: amax edge: make default (%.2f%% against the tree'"'"'s %.2f%%): hopper_scales.c amax_form AMAX_TREE -> AMAX_EDGE, the tree deleted\n", e, t)
                c = e
            } else {
                printf("decides: amax edge: delete (%.2f%% against the tree'"'"'s %.2f%%)\n", e, t)
                c = t
            }
            printf("decides: amax at 8192^3 costs %.2f%%: %s\n", c, c < 3 ? "under 3% (issue 15 met)" : "3% or more (issue 15 not met)") }'
    fi
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>/dev/null
} >"$log" 2>&1
cat "$log"
