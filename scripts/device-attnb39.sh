#!/bin/sh
# Engineer attnb39 (session 39, issue 18 item 3): two opt-in forms of the fused Hopper backward
# (d128, not causal: the default there), each against the default in turns:
#   rows     CUTEC_ATTN_BWD_POST=rows: the last kernel (post_kernel, hopper_bwd_dq.c: dQ's f32
#            sums scaled into dQ) stores dQ through shared memory in row order, 16 bytes a
#            store, for 4 bytes in the MMA's C layout (prof39: 160 us against cuDNN's convert
#            106 for the same bytes).  Predicted ~160 -> ~105-110 us: +1.0% at 8x16x4096
#            (~5.5 ms), +0.25% at 2x16x16384 (the same dQ bytes, 4x the work).  SASS: 4
#            STG.E.128 a thread for 14 STG.E + 4 STG.E.U16 (+16 STS, 4 LDS.128, a BAR).
#   persist  CUTEC_ATTN_BWD_PERSIST=1: the dK/dV kernel on a persistent grid, a block an SM
#            taking the key tiles in launch order (hopper_bwd.c), so that the next tile's K
#            and V load under this one's dK/dV stores and its first Q/dO stages under this
#            one's last steps (prof39's suggestion 3).  Predicted +2-4% at 8x16x4096 (a
#            block's K/V prologue, ~2-3% of its ~170 us, overlapped 31 times an SM), less
#            at 16k (longer blocks).  ptxas: 168 registers, 196 bytes of spill stores (the
#            round's job; the producer warpgroup's 40-register warps most), none in the step
#            loop (SASS: 848 instructions a step against 816, a round's 1,692 with 8 LDL).
# Steps, each skipped (saying so) once it would pass BUDGET_S (default 60 s on one H200, after
# the lead's `make all tests`; about 110 s runs them all):
#   1. rows and persist on the GPU against float64 FIRST (`cutec run attention --bwd`, one
#      process, both forms: odd S, GQA, several rounds of key tiles a block);
#   2. d128 8x16x4096 not causal: the default, rows, persist, then the default, persist, rows
#      (a round's pair whole once a form follows its default; `cutec run attention --bwd
#      --iters 20`: one row, checked against float64 on 256 rows of each output, then the
#      median of 20 calls; `cutec bench` would time the causal row too);
#   3. d128 2x16x16384 alike, one round; 4. SDPA's backward at both shapes
#      (bench/torch_attention.py, as the bench runs it).
# Decides, a form at a time (pairs: a round's form against its default; 0 wrong in every run):
#   ahead in every measured pair, by 0.3% or more on their mean -> "make default" (the
#     flips: ATTN_BWD_POST_DEFAULT in src/kernels/attention/attention_bwd.h; persist's
#     default in bwd_compile.c's kernel_env_choice("CUTEC_ATTN_BWD_PERSIST", ..., 0));
#   behind on the mean and in no pair 0.5% ahead -> "delete"; otherwise "keep opt-in".
# Logs under $OUT (default build/device-out); the summary at the end.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || {
    echo "== device-attnb39: skipped: no GPU here"
    echo "decides: keep opt-in CUTEC_ATTN_BWD_POST=rows (no GPU)"
    echo "decides: keep opt-in CUTEC_ATTN_BWD_PERSIST=1 (no GPU)"
    exit 0
}
log="$out/attnb39.log"
t0=$(date +%s)
budget=${BUDGET_S:-60}
shape4k="--batch 8 --heads 16 --seqlen 4096"
shape16k="--batch 2 --heads 16 --seqlen 16384"
# a form's environment
form_env() {
    case $1 in
    rows) echo CUTEC_ATTN_BWD_POST=rows ;;
    persist) echo CUTEC_ATTN_BWD_PERSIST=1 ;;
    *) echo CUTEC_ATTN_BWD_POST=c ;;
    esac
}
# one run: ROUND FORM SECONDS SHAPE...: `cutec run attention --bwd` d128 under that form
one() {
    f=$1-$2.txt lim=$3
    e=$(form_env "$2")
    shift 3
    # shellcheck disable=SC2086
    device_step "$lim" env $e build/cutec run attention --bwd --headdim 128 --iters 20 "$@" | tee "$out/$f"
    nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1
}
# the TFLOP/s of a run's file, empty unless it verified with 0 wrong
tops() { sed -n 's/.*verified against float64 (0 wrong.*, \([0-9.]*\) TFLOP\/s.*/\1/p' "$out/$1" 2>/dev/null | head -n 1; }
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    echo "== 1. rows and persist on the GPU against float64"
    device_step 12 env CUTEC_ATTN_BWD_POST=rows CUTEC_ATTN_BWD_PERSIST=1 build/cutec run attention --bwd \
        --variant hopper --headdim 128 --iters 1 --batch 4 --heads 16 --kv-heads 8 --seqlen 2049
    # shellcheck disable=SC2086
    {
        echo "== 2. d128 8x16x4096 not causal: the default, rows, persist; the default, persist, rows"
        for form in c rows persist; do one r1 $form 14 $shape4k; done
        for form in c persist rows; do one r2 $form 14 $shape4k; done
        echo "== 3. d128 2x16x16384 not causal: the default, persist, rows"
        for form in c persist rows; do one r3 $form 16 $shape16k; done
    }
    echo "== 4. SDPA's backward at both shapes"
    device_step 25 python3 bench/torch_attention.py --bwd bf16 8x16x4096x128 2x16x16384x128
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^# (check|time|index)" "$log" | tail -n 40
wrong=$(grep -cE "FAILED|WRONG|^cutec" "$log")
awk '/^torch [0-9]+x/ { split($2, x, "x"); f = 10 * x[1] * x[2] * x[3] * x[3] * x[4] / ($3 ? 2 : 1);
    if ($4 > 0) printf "SDPA %s%s: %.1f TFLOP/s\n", $2, $3 ? " causal" : "", f / $4 / 1e9 }' "$log"
echo "wrong/failed lines: $wrong"
# FORM NAME: its pairs against the default, then its "decides:" line
decide() {
    n=0 ahead=0 ahead_half=0 sum=0
    for r in r1 r2 r3; do
        x=$(tops "$r-$1.txt") y=$(tops "$r-c.txt")
        echo "$1 $r: ${x:-?} / default ${y:-?} TFLOP/s, x$(ratio "$x" "$y")"
        [ -n "$x" ] && [ -n "$y" ] || continue
        n=$((n + 1))
        ahead=$((ahead + $(bench_atleast "$x" "$y" 1.0)))
        ahead_half=$((ahead_half + $(bench_atleast "$x" "$y" 1.005)))
        sum=$(awk -v s="$sum" -v a="$x" -v b="$y" 'BEGIN { printf "%.6f", s + a / b }')
    done
    mean=$(awk -v s="$sum" -v n="$n" 'BEGIN { if (n > 0) printf "%.4f", s / n }')
    echo "$1: pairs $n, ahead in $ahead, mean x${mean:-?}"
    if [ "$wrong" != 0 ]; then
        echo "decides: keep opt-in $2 (a wrong or failed line: look first)"
    elif [ "$n" = 0 ]; then
        echo "decides: keep opt-in $2 (no pair measured)"
    elif [ "$ahead" = "$n" ] && at_least "$mean" 1.003; then
        echo "decides: make default $2 (ahead in every pair)"
    elif ! at_least "$mean" 1.0 && [ "$ahead_half" = 0 ]; then
        echo "decides: delete $2 (behind the default on the mean, in no pair 0.5% ahead)"
    else
        echo "decides: keep opt-in $2 (not ahead in every pair by 0.3% on the mean)"
    fi
}
decide rows CUTEC_ATTN_BWD_POST=rows
decide persist CUTEC_ATTN_BWD_PERSIST=1
