#!/bin/sh
# Engineer attnb41 (session 41, issue 18 item 3): the Hopper backward at d128, not causal (the
# fused dK/dV kernel), at both of issue 18's shapes, forms timed in turns with the default in
# one process a shape (`cutec run attention --turns`: one set of inputs, a library a form,
# each form's first call checked against float64, then rounds of timings only, the second
# and fourth reversed):
#   sums2  CUTEC_ATTN_BWD_DQ_SUMS=2 (opt-in; hopper_bwd_dq.c chunk_of / turn_of / add_sums):
#          the key tiles adding to a dQ chunk dealt by rank into two sums, each added in its
#          own fixed order (rank r into sum r % 2, in turn r / 2), the last kernel adding the
#          two in order (deterministic).  A key tile waits for the one two above it, 2 B
#          launches before it, not the one B launches before: the room a block has before its
#          turn catches it doubles (16k: B = 2, ~4 steps of 256 a block; 4k: B = 8, ~4 of 64).
#          Predicted (bench/RESULTS.md, attnb41; a model of the schedule with the SMs' speeds
#          spread by 1-2%): +0.3 to +1.3% at 2x16x16384, -0.6 to 0% at 8x16x4096 (the last
#          kernel reads 268 MB more, ~50 us).
#   atomic CUTEC_ATTN_BWD_FORM=fused-atomic (no turns; nondeterministic, not a candidate): the
#          ceiling of any order's cost; predicted +1.2 to +3.2% at 16k, +0.6 to +1.1 at 4k if
#          the order's hold is what keeps 16k flat.
#   nopdl  CUTEC_ATTN_BWD_PDL=0 (the plain launches; the dependent launches were made the
#          default after session 40's final pass from one pair a form).
# Steps, each skipped (saying so) once it would pass BUDGET_S (default 225 s on one H200,
# after the lead's `make all tests`):
#   1. sums2 on the GPU against float64 at a small odd size (`cutec run attention --bwd`, B2
#      H8 G4 S2049: GQA, every query tile's sums from 17 key tiles, 9 and 8);
#   2. 2x16x16384, then 8x16x4096: `cutec run attention --bwd --headdim 128 --iters 10
#      --rounds 4 --turns sums2/atomic/nopdl` (the default first; ~4 compiles and checks, then
#      16 timings of 10 calls each, a few seconds);
#   3. where the budget has room, `cutec bench attention --bwd` at 2x16x16384 (SDPA beside:
#      the issue's ratio).
# Decides (0 wrong in every check):
#   sums2, the mean of its rounds' ratios to the default's: 16k >= 1.01 and 4k >= 0.995 ->
#     "make default"; 16k below 1.0 and 0.5% ahead in no round at either shape -> "delete";
#     otherwise "keep opt-in";
#   pdl (the default) against nopdl: behind in every round at both shapes and the mean under
#     0.995 -> "the plain launches the default again"; else "pdl stays the default";
#   atomic: printed (what the order costs at each shape), decides nothing.
# Logs under $OUT (default build/device-out); the summary at the end.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || {
    echo "== device-attnb41: skipped: no GPU here"
    echo "decides: keep opt-in CUTEC_ATTN_BWD_DQ_SUMS=2 (no GPU)"
    exit 0
}
log="$out/attnb41.log"
t0=$(date +%s)
budget=${BUDGET_S:-225}
sums2=CUTEC_ATTN_BWD_DQ_SUMS=2 atomic=CUTEC_ATTN_BWD_FORM=fused-atomic nopdl=CUTEC_ATTN_BWD_PDL=0
check="--variant hopper --headdim 128 --iters 1 --batch 2 --heads 8 --kv-heads 4 --seqlen 2049"
# SHAPE SECONDS ARGS: the forms in turns at that shape, into turns-SHAPE.txt
turns() {
    # shellcheck disable=SC2086
    device_step "$2" build/cutec run attention --bwd --headdim 128 --iters 10 --rounds 4 \
        --turns "$sums2/$atomic/$nopdl" $3 | tee "$out/turns-$1.txt"
    nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1
}
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    echo "== 1. sums2 on the GPU against float64, not causal (fused), GQA, odd S"
    # shellcheck disable=SC2086
    device_step 20 env $sums2 build/cutec run attention --bwd $check | tee "$out/check.txt"
    echo "== 2. d128 not causal, in turns (one process a shape): the default, sums2, atomic, nopdl"
    turns 16k 120 "--batch 2 --heads 16 --seqlen 16384"
    turns 4k 95 "--batch 8 --heads 16 --seqlen 4096"
    echo "== 3. 2x16x16384 beside SDPA (the default)"
    device_step 45 build/cutec bench attention --bwd --headdim 128 --batch 2 --heads 16 --seqlen 16384 --iters 10 |
        tail -n 3
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^# (check|time|index)" "$log" | tail -n 60
wrong=$(grep -cE "FAILED|WRONG|failed|^cutec|[1-9][0-9]* wrong" "$log")
checked=$(grep -c "verified against float64 (0 wrong" "$log")
echo "wrong/failed lines: $wrong; checks passed: $checked (1 + 4 a shape)"
# the TFLOP/s of form LABEL's turn R at SHAPE (empty: none)
tops() {
    awk -v r="turn $3" -v f="$2:" '$1 " " $2 == r && $3 == f {
        for (i = 1; i < NF; i++) if ($(i + 1) == "TFLOP/s") { print $i; exit } }' "$out/turns-$1.txt" 2>/dev/null
}
# FORM SHAPE: FORM's ratio to the default in each round at SHAPE; sets n, mean, ahead, ahead_half
rounds() {
    n=0 sum=0 ahead=0 ahead_half=0
    for r in 1 2 3 4; do
        x=$(tops "$2" "$1" $r) y=$(tops "$2" default $r)
        if [ -z "$x" ] || [ -z "$y" ]; then continue; fi
        echo "$2 round $r: $1 $x / default $y TFLOP/s, x$(ratio "$x" "$y")"
        n=$((n + 1))
        ahead=$((ahead + $(bench_atleast "$x" "$y" 1.0)))
        ahead_half=$((ahead_half + $(bench_atleast "$x" "$y" 1.005)))
        sum=$(awk -v s="$sum" -v a="$x" -v b="$y" 'BEGIN { printf "%.6f", s + a / b }')
    done
    mean=$(awk -v s="$sum" -v n="$n" 'BEGIN { if (n > 0) printf "%.4f", s / n }')
    echo "$2 $1: rounds $n, ahead in $ahead, mean x${mean:-?}"
}
rounds "$sums2" 16k
n16=$n m16=$mean a16=$ahead_half
rounds "$sums2" 4k
n4=$n m4=$mean a4=$ahead_half
rounds "$atomic" 16k
rounds "$atomic" 4k
rounds "$nopdl" 16k
p16=$ahead pm16=$mean pn16=$n
rounds "$nopdl" 4k
p4=$ahead pm4=$mean pn4=$n
if [ "$wrong" != 0 ] || [ "$checked" -lt 1 ]; then
    echo "decides: keep opt-in CUTEC_ATTN_BWD_DQ_SUMS=2 (a wrong, failed or missing check: look first)"
elif [ "$n16" -lt 2 ]; then
    echo "decides: keep opt-in CUTEC_ATTN_BWD_DQ_SUMS=2 (fewer than two rounds at 16k)"
elif at_least "$m16" 1.01 && [ "$n4" -ge 2 ] && at_least "$m4" 0.995; then
    echo "decides: make default CUTEC_ATTN_BWD_DQ_SUMS=2 (16k x$m16, 4k x$m4)"
elif ! at_least "$m16" 1.0 && [ "$a16" = 0 ] && [ "$a4" = 0 ]; then
    echo "decides: delete CUTEC_ATTN_BWD_DQ_SUMS=2 (16k x$m16, 4k x${m4:-?}: 0.5% ahead in no round)"
else
    echo "decides: keep opt-in CUTEC_ATTN_BWD_DQ_SUMS=2 (16k x$m16, 4k x${m4:-?})"
fi
# nopdl's rounds ahead of the default: the default (pdl) behind in every round at both shapes?
if [ "$((pn16 + pn4))" -lt 2 ]; then
    echo "decides: pdl stays the default (fewer than two rounds against the plain launches)"
elif [ "$p16" = "$pn16" ] && [ "$p4" = "$pn4" ] && at_least "$pm16" 1.005 && at_least "${pm4:-1.005}" 1.005; then
    echo "decides: the plain launches the default again (nopdl x$pm16 at 16k, x${pm4:-?} at 4k, ahead in every round)"
else
    echo "decides: pdl stays the default (nopdl x${pm16:-?} at 16k, x${pm4:-?} at 4k against it)"
fi
