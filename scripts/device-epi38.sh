#!/bin/sh
# epi38's pass (issue 15: every fused epilogue under 3% at 8192^3; session 38's interleaved
# comparison on an H200 had bias +3.51% and e4m3 per-tensor --amax +5.42%), about 60 s on one
# H200 after `make all tests`; log $OUT/epi38.log.
# The count (cutec compile gemm ... --emit cuda / usage, sm_90a, 128 x 256 tiles):
#  - bias (a column vector by default): each element of a thread's 64 x 64 piece loaded from
#    global under the whole (row and column) bounds predicate as the piece is computed, 32
#    predicated 2-byte loads a piece (128 a tile), half of them repeats (rows r and r + 8 read
#    the same column); 28 bytes spilled.  CUTEC_GEMM_BIAS_LOAD=ahead: the 16 distinct
#    elements a piece, bounded along N only, into registers a piece ahead (64 loads a tile, no
#    spill).
#  - amax: already a register a thread, one warp shuffle tree and one atomicMax a warp at the
#    block's end (no atomics a tile); what a piece costs is a chain of 32 dependent maxima
#    behind a bounds select an element.  CUTEC_GEMM_AMAX=tree: a tree of pairs a piece (depth
#    5); =inside: the tree, and no select in pieces wholly inside C.
# Order: `cutec run gemm` on the GPU against float64 (every element; amax against the float64
# max |x|) for every form, at sizes with edge tiles; then the timings, plain and each form in
# separate processes in turns (the order rotated each round; the same seed: the same inputs,
# the same power draw), the median over rounds of each
# form's ms; the cost of a form: its median over the plain's, less 1.
# The rule: a new form whose cost is 1 point or more below the old form's becomes the default
# (bias: hopper_store.c's bias_ahead default 0 -> 1; amax: hopper_scales.c's amax_form default
# AMAX_CHAIN -> the better of AMAX_TREE / AMAX_INSIDE); below that it stays opt-in; a form
# that lost (cost above the old's by 0.5 or more) is deleted.  A WRONG line: "revert (wrong)".
#   ROUNDS=3 BUDGET_S=50 sh scripts/device-epi38.sh
. scripts/device-common.sh
log="$out/epi38.log"
start=$(date +%s) budget=${BUDGET_S:-50}
rounds=${ROUNDS:-3}
cutec=${CUTEC:-build/cutec} # (a stand-in, to try the script without a GPU)
wrong=0
# check ENV ARGS: `cutec run gemm ARGS` under ENV (VAR=VALUE or "-"), its verdict lines
check()
{
    e=$1
    shift
    [ "$e" = - ] && e=EPI38_PLAIN=1
    env "$e" timeout 30 $cutec run gemm --variant hopper --layout tn "$@" >"$out/epi38.one" 2>&1
    echo "$e $*: $(grep -E '^verified|^amax|WRONG|rror' "$out/epi38.one" | tr '\n' ' ')"
    if ! grep -q '^verified' "$out/epi38.one" || grep -qE 'WRONG|rror' "$out/epi38.one"; then
        wrong=1
        echo "   ^ FAILED"
    fi
}
# ms ENV ARGS: the hopper row's ms of `cutec bench gemm --sizes 8192 ARGS` under ENV, appended to
# $out/epi38-ENV-ARGS (a row that is not "ok": WRONG)
ms()
{
    e=$1
    shift
    tag=$(echo "$e $*" | tr -c 'A-Za-z0-9=\n' '_')
    [ "$e" = - ] && e=EPI38_PLAIN=1
    env "$e" timeout 30 $cutec bench gemm --variants hopper --layout tn --sizes 8192 --iters 20 --seed 38 "$@" \
        >"$out/epi38.one" 2>&1
    row=$(awk '$1 == 8192 && $2 ~ /^hopper/' "$out/epi38.one")
    echo "   $e $*: $row"
    case "$row" in
    *ok*) echo "$row" | awk '{ print $3 }' >>"$out/epi38-$tag" ;;
    *)
        wrong=1
        echo "   ^ WRONG or failed: $(tail -n 2 "$out/epi38.one" | tr '\n' ' ')"
        ;;
    esac
}
# median ENV ARGS: the median of the ms collected for ENV ARGS ("" if none)
median()
{
    tag=$(echo "$*" | tr -c 'A-Za-z0-9=\n' '_')
    [ -f "$out/epi38-$tag" ] || return
    sort -n "$out/epi38-$tag" | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# cost PLAIN FORM: FORM's ms over PLAIN's, less 1, in percent
cost() { awk -v p="$1" -v f="$2" 'BEGIN { if (p > 0 && f > 0) printf("%.2f", 100 * (f / p - 1)) }'; }
# decide NAME OLD NEW DEFAULT-LINE: "decides: ..." by the rule on the costs OLD and NEW
decide()
{
    awk -v n="$1" -v o="$2" -v w="$3" -v how="$4" 'BEGIN {
        if (o == "" || w == "") { printf("decides: %s: keep opt-in (no figure)\n", n); exit }
        d = o - w
        if (d >= 1) printf("decides: %s: make default (cost %.2f%% against %.2f%%, %.2f points less): %s\n", n, w, o, d, how)
        else if (d <= -0.5) printf("decides: %s: delete (cost %.2f%% against %.2f%%, %.2f points more)\n", n, w, o, -d)
        else printf("decides: %s: keep opt-in (cost %.2f%% against %.2f%%, %.2f points less)\n", n, w, o, d) }'
}
# decide_amax CHAIN TREE INSIDE: the amax forms' costs by the rule: the better new form (a
# tie: tree, the simpler) against chain; the other new form is deleted where one wins
decide_amax()
{
    awk -v o="$1" -v t="$2" -v i="$3" 'BEGIN {
        if (o == "" || t == "" || i == "") { print "decides: amax: keep chain, tree and inside opt-in (no figure)"; exit }
        best = (i < t - 0.25) ? "inside" : "tree"; w = best == "inside" ? i : t; other = best == "inside" ? "tree" : "inside"
        d = o - w
        if (d >= 1) printf("decides: amax: make %s default (cost %.2f%% against chain %.2f%%, %.2f points less; tree %.2f%%, inside %.2f%%): amax_form default AMAX_CHAIN -> AMAX_%s (hopper_scales.c); delete chain and %s\n", best, w, o, d, t, i, toupper(best), other)
        else {
            printf("decides: amax: keep chain the default (tree %.2f%%, inside %.2f%% against chain %.2f%%)\n", t, i, o)
            printf("decides: amax tree: %s\n", t - o >= 0.5 ? "delete (lost)" : "keep opt-in")
            printf("decides: amax inside: %s\n", i - o >= 0.5 ? "delete (lost)" : "keep opt-in")
        } }'
}
# the checks, the timings and the decisions (with a GPU)
gpu_pass()
{
    echo "== the GPU against float64, every element $(el_s)"
    for e in - CUTEC_GEMM_BIAS_LOAD=ahead; do
        check "$e" --dtype bf16 --epilogue bias --m 520 --n 1000 --k 264
        check "$e" --dtype bf16 --epilogue bias --bias row --beta 0.5 --m 1000 --n 520 --k 264
        check "$e" --dtype f16 --epilogue bias --bias col --alpha 1.5 --m 776 --n 1032 --k 200 --schedule pingpong
    done
    for e in - CUTEC_GEMM_AMAX=tree CUTEC_GEMM_AMAX=inside; do
        check "$e" --dtype e4m3 --out-dtype bf16 --scale tensor --amax --m 520 --n 1000 --k 272
        check "$e" --dtype e4m3 --out-dtype bf16 --scale block --amax --beta 0.5 --m 1000 --n 520 --k 512
    done
    echo "== 8192^3, $rounds rounds, each form a process in turns (ms of the hopper row, 20 timings) $(el_s)"
    r=0
    while [ "$r" -lt "$rounds" ] && ! device_late "round $r"; do
        if [ $((r % 2)) = 0 ]; then
            ms - --dtype bf16; ms - --dtype bf16 --epilogue bias; ms CUTEC_GEMM_BIAS_LOAD=ahead --dtype bf16 --epilogue bias
            ms - --dtype e4m3 --out-dtype bf16 --scale tensor
            ms - --dtype e4m3 --out-dtype bf16 --scale tensor --amax
            ms CUTEC_GEMM_AMAX=tree --dtype e4m3 --out-dtype bf16 --scale tensor --amax
            ms CUTEC_GEMM_AMAX=inside --dtype e4m3 --out-dtype bf16 --scale tensor --amax
        else
            ms CUTEC_GEMM_BIAS_LOAD=ahead --dtype bf16 --epilogue bias; ms - --dtype bf16 --epilogue bias; ms - --dtype bf16
            ms CUTEC_GEMM_AMAX=inside --dtype e4m3 --out-dtype bf16 --scale tensor --amax
            ms CUTEC_GEMM_AMAX=tree --dtype e4m3 --out-dtype bf16 --scale tensor --amax
            ms - --dtype e4m3 --out-dtype bf16 --scale tensor --amax
            ms - --dtype e4m3 --out-dtype bf16 --scale tensor
        fi
        r=$((r + 1))
    done
    P=$(median - --dtype bf16)
    B0=$(median - --dtype bf16 --epilogue bias)
    B1=$(median CUTEC_GEMM_BIAS_LOAD=ahead --dtype bf16 --epilogue bias)
    E=$(median - --dtype e4m3 --out-dtype bf16 --scale tensor)
    A0=$(median - --dtype e4m3 --out-dtype bf16 --scale tensor --amax)
    A1=$(median CUTEC_GEMM_AMAX=tree --dtype e4m3 --out-dtype bf16 --scale tensor --amax)
    A2=$(median CUTEC_GEMM_AMAX=inside --dtype e4m3 --out-dtype bf16 --scale tensor --amax)
    cb0=$(cost "$P" "$B0") cb1=$(cost "$P" "$B1") ca0=$(cost "$E" "$A0") ca1=$(cost "$E" "$A1") ca2=$(cost "$E" "$A2")
    echo "figure: bf16 plain ${P:-?} ms; bias (each) ${B0:-?} ms (${cb0:-?}%), bias ahead ${B1:-?} ms (${cb1:-?}%)"
    echo "figure: e4m3 per-tensor plain ${E:-?} ms; amax chain ${A0:-?} ms (${ca0:-?}%), tree ${A1:-?} ms (${ca1:-?}%), inside ${A2:-?} ms (${ca2:-?}%)"
    if [ "$wrong" = 1 ]; then
        echo "decides: bias ahead: revert (wrong)"
        echo "decides: amax: revert tree and inside (wrong)"
    else
        decide "bias ahead" "$cb0" "$cb1" "bias_ahead's default 0 -> 1 (hopper_store.c)"
        decide_amax "$ca0" "$ca1" "$ca2"
    fi
}
rm -f "$out"/epi38-*
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing checked or timed"
        echo "decides: bias ahead: keep opt-in (no GPU)"
        echo "decides: amax: keep chain, tree and inside opt-in (no GPU)"
        gpu=no
    fi
    [ "${gpu:-yes}" = no ] || gpu_pass
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
