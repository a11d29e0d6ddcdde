#!/bin/sh
# epi39's pass (issue 15: e4m3 per-tensor --amax at 8192^3 under 3% over the plain kernel), about
# 25 s on one H200 after `make all tests` (60 s at most: no step starts after 45 s or runs past
# 60); log $OUT/epi39.log.  Session 39's second pass decided the form (bench/RESULTS.md "epi39"):
# inner pieces by a tree of |x| with no bounds, an edge piece's bounds computed there only and
# masking |x|'s bits (+2.47% against the old tree's +6.95%, three processes each; the tree, with
# a select an element, deleted).  This pass: `cutec run gemm` against float64 on the GPU (every
# element; amax against the float64 max |x|) at odd sizes (edge pieces; K a multiple of 16, as
# TMA asks of e4m3 rows): per-tensor, a column bias with the output scale, block scales with
# beta; then the cost at 8192^3 in turns with the plain kernel in one process (`cutec bench
# gemm --epilogue-cost`, the median of the rounds' ratios), three processes (their mean).
#   ROUNDS=20 BUDGET_S=45 sh scripts/device-epi39.sh
. scripts/device-common.sh
log="$out/epi39.log"
start=$(date +%s) budget=${BUDGET_S:-45}
# lim S: S seconds, or what is left of the 60 s cap if less (a step never runs past it)
lim() { l=$((60 - $(el))); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
rounds=${ROUNDS:-20}
cutec=${CUTEC:-build/cutec} # (a stand-in, to try the script without a GPU)
bad=0
# check ARGS: `cutec run gemm ARGS`: its verdict lines; a run with no "verified" line, a WRONG,
# or an amax line not ok sets $bad
check()
{
    device_late "check $*" && return
    timeout "$(lim 15)" $cutec run gemm --variant hopper --layout tn --dtype e4m3 --out-dtype bf16 --amax "$@" \
        >"$out/epi39.one" 2>&1
    echo "$*: $(grep -E '^verified|^amax|WRONG' "$out/epi39.one" | tr '\n' ' ')"
    if ! grep -q '^verified' "$out/epi39.one" || grep -q 'WRONG' "$out/epi39.one" ||
        ! grep -q '^amax: .*(ok' "$out/epi39.one"; then
        bad=1
        echo "   ^ FAILED: $(head -n 1 "$out/epi39.one" | cut -c1-300) ... $(tail -n 1 "$out/epi39.one")"
    fi
}
# cost: `cutec bench gemm --epilogue-cost` of e4m3 per-tensor amax at 8192^3: its rows and cost
# line, the cost in time appended to $out/epi39.pct (nothing where a row is not ok: sets $bad)
cost()
{
    device_late "cost" && return
    echo "-- $(el_s)"
    timeout "$(lim 20)" stdbuf -oL -eL $cutec bench gemm --variants hopper --layout tn --sizes 8192 \
        --seed 39 --iters "$rounds" --dtype e4m3 --out-dtype bf16 --scale tensor --amax --epilogue-cost \
        >"$out/epi39.one" 2>&1
    grep -E '^8192|^cost|WRONG|rror' "$out/epi39.one"
    if grep -E '^8192' "$out/epi39.one" | grep -qv ' ok'; then
        bad=1
        echo "   ^ a row not ok"
        return
    fi
    sed -n 's/^cost .*: time \([-+]*[0-9][0-9.]*\)%.*/\1/p' "$out/epi39.one" | tr -d '+' >>"$out/epi39.pct"
}
{
    device_head
    rm -f "$out/epi39.pct"
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing checked or timed"
        echo "decides: amax at 8192^3: no figure (no GPU)"
    else
        echo "== the GPU against float64, every element, edge pieces $(el_s)"
        check --scale tensor --m 520 --n 1000 --k 272
        check --scale tensor --epilogue bias --bias col --out-scale 0.5 --m 776 --n 1032 --k 208
        check --scale block --beta 0.5 --m 1000 --n 520 --k 512
        echo "== e4m3 per-tensor amax at 8192^3 in turns with the plain kernel, $rounds rounds, three processes $(el_s)"
        cost
        cost
        cost
        c=$(awk '{ s += $1; n++ } END { if (n) printf "%.2f", s / n }' "$out/epi39.pct" 2>/dev/null)
        echo "figure: 8192^3 e4m3 per-tensor amax over the plain kernel: ${c:-?}% ($(tr '\n' ' ' <"$out/epi39.pct" 2>/dev/null))"
        if [ "$bad" = 1 ]; then
            echo "decides: amax: a check failed: the epilogue's owner to look at (wrong)"
        elif [ -n "$c" ]; then
            awk -v c="$c" 'BEGIN { printf("decides: amax at 8192^3 costs %.2f%%: %s\n", c, c < 3 ? "under 3% (issue 15 met)" : "3% or more (issue 15 not met)") }'
        else
            echo "decides: amax at 8192^3: no figure"
        fi
    fi
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>/dev/null
} >"$log" 2>&1
cat "$log"
