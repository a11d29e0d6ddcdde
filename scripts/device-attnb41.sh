#!/bin/sh
# Engineer attnb41 (session 41, issue 18 item 3): the Hopper backward at d128, not causal (the
# fused dK/dV kernel), its dQ sums in two, against the default, at both of issue 18's shapes:
#   sums2  CUTEC_ATTN_BWD_DQ_SUMS=2 (opt-in; hopper_bwd_dq.c chunk_of / turn_of / add_sums):
#          the key tiles adding to a dQ chunk dealt by rank into two sums, each added in its
#          own fixed order (rank r into sum r % 2, in turn r / 2), the last kernel adding the
#          two in order (deterministic).  A key tile waits for the one two above it, 2 B
#          launches before it, not the one B launches before: the room a block has before its
#          turn catches it doubles (16k: B = 2, ~4 steps of 256 a block; 4k: B = 8, ~4 of 64).
#          Predicted (bench/RESULTS.md, attnb41; a model of the schedule with the SMs' speeds
#          spread by 1-2%): +0.3 to +1.3% at 2x16x16384, -0.6 to 0% at 8x16x4096 (the last
#          kernel reads 268 MB more, ~50 us); fused-atomic +1.2 to +3.2% at 16k, +0.6 to +1.1
#          at 4k if the order's hold is what keeps 16k flat.
#   nopdl  CUTEC_ATTN_BWD_PDL=0 (the plain launches; the default's dependent launches were
#          flipped after session 40's final pass without a run in turns): where the budget
#          has room, after the pairs above.
#   atomic CUTEC_ATTN_BWD_FORM=fused-atomic (no turns; nondeterministic, not a candidate):
#          where the budget has room, the ceiling of any order's cost.
# Steps, each skipped (saying so) once it would pass BUDGET_S (default 50 s on one H200,
# after the lead's `make all tests`):
#   1. sums2 on the GPU against float64 FIRST (`cutec run attention --bwd`, B2 H8 G4 S2049:
#      odd S, GQA, every query tile's sums from 17 key tiles, 9 and 8);
#   2. `cutec run attention --bwd --headdim 128 --iters 10` (checked against float64 on 2,560
#      rows, then the median of 10 calls; ~10 s a process, most of it the host's inputs and
#      checks), a process each, in turns: 16k default, sums2; 4k sums2, default; atomic 16k;
#      nopdl 16k, 4k; 16k sums2, default; 4k default, sums2; atomic 4k.  At 50 s the first
#      four runs; the rest as the budget allows.
# Decides (0 wrong in every run): at each shape the mean of sums2 / default over its pairs;
#   16k mean >= 1.01 and 4k mean >= 0.995 -> "make default"; 16k mean >= 1.01 and 4k below
#   -> "make default where a block walks >= 128 query tiles" (4k keeps one sum); 16k mean
#   below 1.0 and no pair at either shape 0.5% ahead -> "delete"; otherwise "keep opt-in".
# Logs under $OUT (default build/device-out); the summary at the end.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || {
    echo "== device-attnb41: skipped: no GPU here"
    echo "decides: keep opt-in CUTEC_ATTN_BWD_DQ_SUMS=2 (no GPU)"
    exit 0
}
log="$out/attnb41.log"
t0=$(date +%s)
budget=${BUDGET_S:-50}
s4k="--batch 8 --heads 16 --seqlen 4096"
s16k="--batch 2 --heads 16 --seqlen 16384"
check="--variant hopper --headdim 128 --iters 1 --batch 2 --heads 8 --kv-heads 4 --seqlen 2049"
form_env() {
    case $1 in
    sums2) echo CUTEC_ATTN_BWD_DQ_SUMS=2 ;;
    nopdl) echo CUTEC_ATTN_BWD_PDL=0 ;;
    atomic) echo CUTEC_ATTN_BWD_FORM=fused-atomic ;;
    *) echo CUTEC_ATTN_BWD_DQ_SUMS=1 ;;
    esac
}
# one run: FORM SHAPE N: `cutec run attention --bwd` d128 under FORM at SHAPE (4k|16k) into
# FORM-SHAPE-N.txt, the clocks after it
one() {
    e=$(form_env "$1")
    if [ "$2" = 16k ]; then s=$s16k lim=20; else s=$s4k lim=14; fi
    # shellcheck disable=SC2086
    device_step $lim env $e build/cutec run attention --bwd --headdim 128 --iters 10 $s | tee "$out/$1-$2-$3.txt"
    nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1
}
# the TFLOP/s of a run's file, empty unless it verified with 0 wrong
tops() { sed -n 's/.*verified against float64 (0 wrong.*, \([0-9.]*\) TFLOP\/s.*/\1/p' "$out/$1.txt" 2>/dev/null | head -n 1; }
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    echo "== 1. sums2 on the GPU against float64, not causal (fused), GQA, odd S"
    # shellcheck disable=SC2086
    device_step 14 env CUTEC_ATTN_BWD_DQ_SUMS=2 build/cutec run attention --bwd $check | tee "$out/check.txt"
    echo "== 2. d128 not causal, in turns: 16k default, sums2; 4k sums2, default; fused-atomic 16k;"
    echo "     nopdl 16k, 4k; 16k sums2, default; 4k default, sums2; fused-atomic 4k"
    one default 16k 1
    one sums2 16k 1
    one sums2 4k 1
    one default 4k 1
    one atomic 16k 1
    one nopdl 16k 1
    one nopdl 4k 1
    one sums2 16k 2
    one default 16k 2
    one default 4k 2
    one sums2 4k 2
    one atomic 4k 1
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^# (check|time|index)" "$log" | tail -n 50
wrong=$(grep -cE "FAILED|WRONG|^cutec|[1-9][0-9]* wrong" "$log")
checked=$(grep -c "verified against float64 (0 wrong" "$out/check.txt" 2>/dev/null)
echo "wrong/failed lines: $wrong; checks passed: ${checked:-0} of 1"
# SHAPE: the pairs of sums2 and the default at SHAPE; sets n, mean, ahead_half
pairs() {
    n=0 sum=0 ahead_half=0
    for r in 1 2; do
        x=$(tops "sums2-$1-$r") y=$(tops "default-$1-$r")
        echo "$1 pair $r: sums2 ${x:-?} / default ${y:-?} TFLOP/s, x$(ratio "$x" "$y")"
        if [ -z "$x" ] || [ -z "$y" ]; then continue; fi
        n=$((n + 1))
        ahead_half=$((ahead_half + $(bench_atleast "$x" "$y" 1.005)))
        sum=$(awk -v s="$sum" -v a="$x" -v b="$y" 'BEGIN { printf "%.6f", s + a / b }')
    done
    mean=$(awk -v s="$sum" -v n="$n" 'BEGIN { if (n > 0) printf "%.4f", s / n }')
    echo "$1: pairs $n, mean x${mean:-?}"
}
pairs 16k
n16=$n m16=$mean a16=$ahead_half
pairs 4k
n4=$n m4=$mean a4=$ahead_half
np=0 psum=0 pahead=0
for s in 16k 4k; do
    x=$(tops "nopdl-$s-1")
    for r in 1 2; do
        y=$(tops "default-$s-$r")
        echo "pdl (the default) run $r at $s: ${y:-?} / the plain launches' ${x:-?} TFLOP/s, x$(ratio "$y" "$x")"
        if [ -z "$x" ] || [ -z "$y" ]; then continue; fi
        np=$((np + 1)) pahead=$((pahead + $(bench_atleast "$y" "$x" 1.0)))
        psum=$(awk -v s="$psum" -v a="$y" -v b="$x" 'BEGIN { printf "%.6f", s + a / b }')
    done
done
pmean=$(awk -v s="$psum" -v n="$np" 'BEGIN { if (n > 0) printf "%.4f", s / n }')
if [ "$np" -lt 2 ]; then
    echo "decides: CUTEC_ATTN_BWD_PDL stays as it is (fewer than two pairs of pdl and the plain launches)"
elif [ "$pahead" = 0 ] && ! at_least "$pmean" 0.995; then
    echo "decides: the plain launches the default again (pdl x$pmean, behind in every pair)"
else
    echo "decides: pdl stays the default (x$pmean over the plain launches, ahead in $pahead of $np pairs)"
fi
for s in 16k 4k; do
    echo "fused-atomic (no turns, the ceiling of the order's cost) at $s: $(tops "atomic-$s-1") TFLOP/s against the default's $(tops "default-$s-1") / $(tops "default-$s-2")"
done
if [ "$wrong" != 0 ] || [ "${checked:-0}" != 1 ]; then
    echo "decides: keep opt-in CUTEC_ATTN_BWD_DQ_SUMS=2 (a wrong, failed or missing check: look first)"
elif [ "$n16" = 0 ]; then
    echo "decides: keep opt-in CUTEC_ATTN_BWD_DQ_SUMS=2 (no pair at 16k measured)"
elif at_least "$m16" 1.01 && [ "$n4" -gt 0 ] && at_least "$m4" 0.995; then
    echo "decides: make default CUTEC_ATTN_BWD_DQ_SUMS=2 (16k x$m16, 4k x$m4)"
elif at_least "$m16" 1.01; then
    echo "decides: make default CUTEC_ATTN_BWD_DQ_SUMS=2 where a block walks >= 128 query tiles (16k x$m16, 4k x${m4:-?})"
elif ! at_least "$m16" 1.0 && [ "$a16" = 0 ] && [ "${a4:-0}" = 0 ]; then
    echo "decides: delete CUTEC_ATTN_BWD_DQ_SUMS=2 (16k x$m16, 4k x${m4:-?}: 0.5% ahead in no pair)"
else
    echo "decides: keep opt-in CUTEC_ATTN_BWD_DQ_SUMS=2 (16k x$m16, 4k x${m4:-?}: not 1% ahead at 16k)"
fi
