#!/bin/sh
# epi38's pass (issue 15: every fused epilogue under 3% at 8192^3), about 60 s on one H200 after
# `make all tests`; log $OUT/epi38.log.
# The count (cutec compile gemm ... --emit cuda / usage, sm_90a, 128 x 256 tiles):
#  - bias: each element of a thread's 64 x 64 piece was loaded under the whole bounds predicate
#    as the piece was computed (32 predicated loads a piece, half repeats; 28 bytes spilled).
#    Now the piece's 16 distinct elements, bounded along N alone, into registers a piece ahead
#    (hopper_store.c vector_regs; no spill).
#  - amax: one register a thread, one shuffle tree and one atomicMax a warp at the block's end;
#    a piece added a chain of 32 dependent maxima behind a select an element.  Now a tree of
#    pairs a piece (the default); `inside` (no select in pieces wholly inside C) was measured
#    no better in session 39 and deleted (bench/RESULTS.md "epi39"; device-epi39.sh has amax now).
# The mid pass (H200, 06:34, separate processes, one round): bias +4.9% -> +1.0% over the plain
# kernel, amax chain +10.5% -> tree +4.3%: both new forms the defaults, the old ones deleted.
# This pass: `cutec run gemm` of every form against float64 on the GPU (every element; amax
# against the float64 max |x|), then each cost at 8192^3 in turns with the plain kernel in one
# process (`cutec bench gemm --epilogue-cost`, the median of the rounds' ratios).
# A failed check: "revert (wrong)".
#   ROUNDS=20 BUDGET_S=60 sh scripts/device-epi38.sh
. scripts/device-common.sh
log="$out/epi38.log"
start=$(date +%s) budget=${BUDGET_S:-60}
rounds=${ROUNDS:-20}
cutec=${CUTEC:-build/cutec} # (a stand-in, to try the script without a GPU)
wrong=0
# check ENV ARGS: `cutec run gemm ARGS` under ENV (VAR=VALUE, or - for none): its verdict lines;
# a run with no "verified" line, a WRONG, or an amax line not ok fails
check()
{
    e=$1
    shift
    [ "$e" = - ] && e=EPI38_PLAIN=1
    env "$e" timeout 30 $cutec run gemm --variant hopper --layout tn "$@" >"$out/epi38.one" 2>&1
    echo "$e $*: $(grep -E '^verified|^amax|WRONG' "$out/epi38.one" | tr '\n' ' ')"
    if ! grep -q '^verified' "$out/epi38.one" || grep -q 'WRONG' "$out/epi38.one" ||
        { grep -q '^amax' "$out/epi38.one" && ! grep -q '^amax: .*(ok' "$out/epi38.one"; }; then
        wrong=1
        echo "   ^ FAILED: $(tail -n 2 "$out/epi38.one" | tr '\n' ' ')"
    fi
}
# cost ENV ARGS: `cutec bench gemm --epilogue-cost ARGS` at 8192^3 under ENV: its rows and cost
# line; $pct the cost in time ("" where none, or a row not ok)
cost()
{
    e=$1
    shift
    pct=
    device_late "cost $e $*" && return
    [ "$e" = - ] && e=EPI38_PLAIN=1
    echo "-- $e $* $(el_s)"
    env "$e" timeout 30 stdbuf -oL -eL $cutec bench gemm --variants hopper --layout tn --sizes 8192 --seed 38 \
        --iters "$rounds" --epilogue-cost "$@" >"$out/epi38.one" 2>&1
    grep -E '^8192|^cost|WRONG|rror' "$out/epi38.one"
    if grep -E '^8192' "$out/epi38.one" | grep -qv ' ok'; then
        wrong=1
        echo "   ^ a row not ok"
        return
    fi
    pct=$(sed -n 's/^cost .*: time \([-+0-9.]*\)%.*/\1/p' "$out/epi38.one" | tr -d '+')
}
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing checked or timed"
    else
        echo "== the GPU against float64, every element $(el_s)"
        check - --dtype bf16 --epilogue bias --m 520 --n 1000 --k 264
        check - --dtype bf16 --epilogue bias --bias row --beta 0.5 --m 1000 --n 520 --k 264
        check - --dtype f16 --epilogue bias --bias col --alpha 1.5 --m 776 --n 1032 --k 200 --schedule pingpong
        check - --dtype e4m3 --out-dtype bf16 --scale tensor --amax --m 520 --n 1000 --k 272
        check - --dtype e4m3 --out-dtype bf16 --scale block --amax --beta 0.5 --m 1000 --n 520 --k 512
        echo "== costs at 8192^3, each in turns with the plain kernel in one process, $rounds rounds $(el_s)"
        cost - --dtype bf16 --epilogue bias && cb=$pct
        cost - --dtype e4m3 --out-dtype bf16 --scale tensor --amax && ct=$pct
        echo "figure: 8192^3 bias (read ahead) ${cb:-?}%, e4m3 per-tensor amax by the tree ${ct:-?}% over the plain kernel"
        [ "$wrong" = 1 ] && echo "decides: bias ahead and amax tree: revert (wrong)"
    fi
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
