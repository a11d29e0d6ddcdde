#!/bin/sh
# Issue 18, engineer attnf40 (session 40): the Hopper attention forward at d128 non-causal
# (asks 730 TFLOP/s at 8x16x4096, 780 at 2x16x16384; session 39: 693.2 and 718.7-725.8).
# The form timed here, CUTEC_ATTN_FWD_TAIL=1 ("tail"): both shapes are 4,096 Q tiles on the
# persistent grid's 132 blocks, 31 rounds and 4 tiles, so the busiest block runs 32 tiles
# while 128 SMs idle through the last.  With the tail in runs (hopper_fwd.c item_at, stream-K's
# hybrid division from streamk.c) every block runs 30 whole tiles and then a run of 26.8 of
# 26 key tiles (4k; 106.1 of 103 at 16k) over the last 136 tiles, a split tile's softmax state
# (O, m, l) handed from the block with its head to the one with its tail.  Predicted (before
# any figure): the busiest block's key tiles 832 -> 807 and 3,296 -> 3,197 (x0.970 both), less
# a key tile or two of the state's store and load and the extra tile start: +2.5-3% at both
# shapes (4k ~693 -> ~712, 16k ~720 -> ~740); causal untouched (its rows here are the same
# kernel both times: a control).
# Steps: a float64 check on the GPU first (`cutec run attention`, every row, an odd size where
# the runs are taken: 1x40x777 GQA, 280 tiles of 5 key tiles, 132 whole then runs over the last
# 148), then d128 8x16x4096 and 2x16x16384, the default and tail in turns, two rounds, then
# the default at 4k with SDPA beside (round 0) as the budget allows (~16 s more: BUDGET_S
# ~105); every bench row checked against float64 samples.  90 s at most on one H200 after `make all tests` (BUDGET_S; a step that would
# pass it prints "skipped"; the SDPA process takes ~16 s, the others ~9-10 s).  Logs under $OUT.
# The mid pass (H200, 11:44, 60 s): the check 0 wrong in 2,072 rows; 16k tail 738.4 against
# the default's 723.8 (x1.020), 4k tail 699.1 and 702.4 (the default's SDPA process ran past
# its 14 s and printed no row; the second round was cut by the budget).
# Rule (non-causal rows, R = tail's TFLOP/s over the default's in the same round, the mean over
# the rounds with both; no row or check WRONG): "make default" (TAIL_RUNS_D128 = true in
# hopper_plan.c) when R4k and R16k average >= 1.008 and neither is under 0.998; else "delete"
# (the form and its code, the figures stay in bench/RESULTS.md); a check or row WRONG, or no
# 4k or 16k pair: "keep as is".
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || { echo "== device-attnf40: skipped: no GPU here"; exit 0; }
log="$out/attnf40.log"
t0=$(date +%s)
budget=${BUDGET_S:-105}
s4k="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
s16k="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5"
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
env_of()
{
    case $1 in
    tail) echo "CUTEC_ATTN_FWD_TAIL=1" ;;
    default) echo "CUTEC_ATTN_FWD_TAIL=0" ;;
    esac
}
# one SHAPE ROUND FORM SECONDS [sdpa]: a bench process into attnf40-SHAPE-ROUND-FORM.txt
one()
{
    sd=$nosdpa
    [ "${5:-}" = sdpa ] && sd=
    eval "args=\$s$1"
    # shellcheck disable=SC2086,SC2046,SC2154
    device_step "$4" env $sd $(env_of "$3") build/cutec bench attention $args | tee "$out/attnf40-$1-$2-$3.txt"
}
# fig SHAPE ROUND FORM: the non-causal row's TFLOP/s
fig() { attn_tops "$out/attnf40-$1-$2-$3.txt" n; }
# rmean SHAPE: tail's ratio to the default, the mean over the rounds with both
rmean()
{
    for r in 1 2; do ratio "$(fig "$1" $r tail)" "$(fig "$1" $r default)"; echo; done |
        awk 'NF { s += $1; n++ } END { if (n) printf "%.4f", s / n }'
}
decide()
{
    n4=$(rmean 4k) n16=$(rmean 16k)
    what="tail/default: d128 4k x$n4, 16k x$n16"
    bad=$(grep -l "WRONG\|FAILED" "$out"/attnf40-*.txt 2>/dev/null | head -3)
    checked=$(cat "$out"/attnf40-check-*.txt 2>/dev/null | grep -c 'verified against float64')
    mean=$(awk -v a="$n4" -v b="$n16" 'BEGIN { if (a != "" && b != "") printf "%.4f", (a + b) / 2 }')
    if [ -n "$bad" ] || [ "$checked" -lt 1 ]; then
        echo "decides: tail: keep as is (a check or row WRONG or not run: $bad; $checked of 1 check verified; $what): fix first"
    elif [ -z "$n4" ] || [ -z "$n16" ]; then
        echo "decides: tail: keep as is (no 4k or 16k pair; $what): time it again"
    elif at_least "$mean" 1.008 && at_least "$n4" 0.998 && at_least "$n16" 0.998; then
        echo "decides: tail: make default ($what, mean x$mean): TAIL_RUNS_D128 = true in hopper_plan.c (d64 stays off, untimed)"
    else
        echo "decides: tail: delete ($what, mean x$mean): CUTEC_ATTN_FWD_TAIL and its code; the figures stay in RESULTS.md"
    fi
}
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null); the tail in runs (CUTEC_ATTN_FWD_TAIL=1)"
    echo "== a check against float64 on the GPU, every row, the tail in runs: 1x40x777 GQA"
    device_step 12 env CUTEC_ATTN_FWD_TAIL=1 build/cutec run attention --variant hopper --batch 1 --heads 40 \
        --kv-heads 8 --seqlen 777 --headdim 128 --iters 1 | tee "$out/attnf40-check-gqa.txt"
    echo "== d128 8x16x4096 and 2x16x16384: the default then tail, then tail then the default; then SDPA beside the default at 4k"
    one 4k 1 default 10
    one 4k 1 tail 10
    one 16k 1 tail 11
    one 16k 1 default 11
    one 4k 2 tail 10
    one 4k 2 default 10
    one 16k 2 default 11
    one 16k 2 tail 11
    one 4k 0 default 22 sdpa
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    for s in 4k 16k; do
        for r in 0 1 2; do
            for f in default tail; do
                [ -f "$out/attnf40-$s-$r-$f.txt" ] && echo "== $s round $r $f: $(fig $s $r $f)"
            done
        done
    done
    decide
} >"$log" 2>&1
tail -n 40 "$log"
