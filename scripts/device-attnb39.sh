#!/bin/sh
# Engineer attnb39 (session 39, issue 18 item 3): the fused Hopper backward's last kernel
# (post_kernel, hopper_bwd_dq.c: dQ's f32 sums scaled into dQ) storing dQ through shared
# memory in row order, 16 bytes a store (CUTEC_ATTN_BWD_POST=rows), against the default's
# 4-byte stores in the MMA's C layout (c; prof39: 160 us against cuDNN's convert 106 for the
# same bytes).  Predicted: post_kernel ~160 -> ~105-110 us, +1.0% at 8x16x4096 not causal
# (~5.5 ms), +0.25% at 2x16x16384 (the same dQ bytes, 4x the work); causal untouched (its
# default is the two kernels).  ptxas (sm_90a): post_kernel 46 registers either way; SASS
# 264 -> 296 instructions, its stores 14 STG.E + 4 STG.E.U16 -> 4 STG.E.128 (16 STS and 4
# LDS.128 added, one BAR).
# Steps, each skipped (saying so) once it would pass BUDGET_S (default 60 s on one H200, after
# the lead's `make all tests`):
#   1. rows on the GPU against float64 FIRST (`cutec run attention --bwd`: odd S, GQA, not
#      causal; every row of dQ, dK, dV up to 4096);
#   2. d128 8x16x4096 not causal, the default and rows in turns, two rounds (`cutec run
#      attention --bwd --iters 20`: one row, checked against float64 on 256 rows of each
#      output, then the median of 20 calls; `cutec bench` would time the causal row too);
#   3. d128 2x16x16384 alike, one round; 4. SDPA's backward at both shapes
#      (bench/torch_attention.py, as the bench runs it), what time is left.
# Decides (pairs: a round's rows against its default; 0 wrong in every run):
#   rows ahead in every measured pair, by 0.3% or more on their mean -> "make default" (the
#     flip: ATTN_BWD_POST_DEFAULT in src/kernels/attention/attention_bwd.h);
#   behind on the mean and in no pair 0.5% ahead -> "delete"; otherwise "keep opt-in".
# Logs under $OUT (default build/device-out); the summary at the end.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || {
    echo "== device-attnb39: skipped: no GPU here"
    echo "decides: keep opt-in CUTEC_ATTN_BWD_POST=rows (no GPU)"
    exit 0
}
log="$out/attnb39.log"
t0=$(date +%s)
budget=${BUDGET_S:-60}
shape4k="--batch 8 --heads 16 --seqlen 4096"
shape16k="--batch 2 --heads 16 --seqlen 16384"
# one run: FILE SECONDS FORM SHAPE...: `cutec run attention --bwd` d128 under that form
one() {
    f=$1 lim=$2 form=$3
    shift 3
    device_step "$lim" env CUTEC_ATTN_BWD_POST="$form" build/cutec run attention --bwd --headdim 128 --iters 20 "$@" |
        tee "$out/$f"
    nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1
}
# the TFLOP/s of a run's file, empty unless it verified with 0 wrong
tops() { sed -n 's/.*verified against float64 (0 wrong.*, \([0-9.]*\) TFLOP\/s.*/\1/p' "$out/$1" 2>/dev/null | head -n 1; }
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    echo "== 1. rows on the GPU against float64"
    device_step 12 env CUTEC_ATTN_BWD_POST=rows build/cutec run attention --bwd --variant hopper --headdim 128 \
        --iters 1 --batch 2 --heads 6 --kv-heads 3 --seqlen 1001
    echo "== 2. d128 8x16x4096 not causal: the default, rows, in turns"
    one r1-c.txt 14 c $shape4k
    one r1-rows.txt 14 rows $shape4k
    one r2-rows.txt 14 rows $shape4k
    one r2-c.txt 14 c $shape4k
    echo "== 3. d128 2x16x16384 not causal: rows, the default"
    one r3-rows.txt 16 rows $shape16k
    one r3-c.txt 16 c $shape16k
    echo "== 4. SDPA's backward at both shapes"
    device_step 25 python3 bench/torch_attention.py --bwd bf16 8x16x4096x128 2x16x16384x128
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^# (check|time|index)" "$log" | tail -n 40
wrong=$(grep -cE "FAILED|WRONG|^cutec" "$log")
awk '/^torch [0-9]+x/ { split($2, x, "x"); f = 10 * x[1] * x[2] * x[3] * x[3] * x[4] / ($3 ? 2 : 1);
    if ($4 > 0) printf "SDPA %s%s: %.1f TFLOP/s\n", $2, $3 ? " causal" : "", f / $4 / 1e9 }' "$log"
n=0 ahead=0 ahead_half=0 sum=0
for r in r1 r2 r3; do
    x=$(tops "$r-rows.txt") y=$(tops "$r-c.txt")
    echo "$r: rows ${x:-?} / default ${y:-?} TFLOP/s, x$(ratio "$x" "$y")"
    [ -n "$x" ] && [ -n "$y" ] || continue
    n=$((n + 1))
    ahead=$((ahead + $(bench_atleast "$x" "$y" 1.0)))
    ahead_half=$((ahead_half + $(bench_atleast "$x" "$y" 1.005)))
    sum=$(awk -v s="$sum" -v a="$x" -v b="$y" 'BEGIN { printf "%.6f", s + a / b }')
done
mean=$(awk -v s="$sum" -v n="$n" 'BEGIN { if (n > 0) printf "%.4f", s / n }')
echo "pairs $n, rows ahead in $ahead, mean x${mean:-?}; wrong/failed lines: $wrong"
if [ "$wrong" != 0 ]; then
    echo "decides: keep opt-in CUTEC_ATTN_BWD_POST=rows (a wrong or failed line: look first)"
elif [ "$n" = 0 ]; then
    echo "decides: keep opt-in CUTEC_ATTN_BWD_POST=rows (no pair measured)"
elif [ "$ahead" = "$n" ] && at_least "$mean" 1.003; then
    echo "decides: make default CUTEC_ATTN_BWD_POST=rows (ATTN_BWD_POST_DEFAULT, attention_bwd.h)"
elif ! at_least "$mean" 1.0 && [ "$ahead_half" = 0 ]; then
    echo "decides: delete CUTEC_ATTN_BWD_POST=rows (behind the default on the mean, in no pair 0.5% ahead)"
else
    echo "decides: keep opt-in CUTEC_ATTN_BWD_POST=rows (not ahead in every pair by 0.3% on the mean)"
fi
