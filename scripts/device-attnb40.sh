#!/bin/sh
# Engineer attnb40 (session 40, issue 18 item 3): the Hopper backward (d128 8x16x4096, not
# causal: the fused dK/dV kernel), two forms against the default in turns:
#   pdl    CUTEC_ATTN_BWD_PDL=1 (opt-in): the kernels after pre as programmatic dependent
#          launches (hopper_bwd.c pdl_enter, hopper_bwd_dq.c post_wait_kernel): the dK/dV
#          kernel's first stages load under pre's last wave, and dQ's last pass takes each
#          chunk once its count is complete, on the SMs the dK/dV kernel's last wave (4
#          blocks of 4,096 on 132 SMs) leaves idle, instead of after it.  Predicted +1.5-2%.
#          The mid pass: 485.4 TFLOP/s against the default's 497.2 (one process each).
#   (nolean, the steps before the lean ones, timed here in the final pass: 479.4 / 481.0
#          against 508.0 / 510.0; deleted, and its runs with it)
# Steps, each skipped (saying so) once it would pass BUDGET_S (default 90 s on one H200, after
# the lead's `make all tests`):
#   1. pdl on the GPU against float64 FIRST (`cutec run attention --bwd`, one process not
#      causal (fused), one causal (the two kernels): odd S, GQA, 17 key tiles a block);
#   2. d128 8x16x4096 not causal, `cutec run attention --bwd --iters 20` (checked against
#      float64 on 2,560 rows, then the median of 20 calls; a process ~10 s): a warm-up
#      process (the default, not counted: the mid pass's first process ran 5% slow), then
#      the default, pdl; pdl, the default.
#   Not run (past the budget): 2x16x16384, causal timings, SDPA (the final pass's bench).
# Decides, a form at a time (its runs against every default run; 0 wrong in every run):
#   ahead of every default run, by 0.3% or more on the mean -> "make default" (pdl: the 0 in
#     bwd_compile.c's kernel_env_choice("CUTEC_ATTN_BWD_PDL", "0|1", 0));
#   behind on the mean and 0.5% ahead of no default run -> "delete" (pdl: its code);
#   otherwise "keep opt-in".
# Logs under $OUT (default build/device-out); the summary at the end.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || {
    echo "== device-attnb40: skipped: no GPU here"
    echo "decides: keep opt-in CUTEC_ATTN_BWD_PDL=1 (no GPU)"
    exit 0
}
log="$out/attnb40.log"
t0=$(date +%s)
budget=${BUDGET_S:-90}
shape4k="--batch 8 --heads 16 --seqlen 4096"
check="--variant hopper --headdim 128 --iters 1 --batch 4 --heads 16 --kv-heads 8 --seqlen 2049"
form_env() {
    case $1 in
    pdl) echo CUTEC_ATTN_BWD_PDL=1 ;;
    *) echo CUTEC_ATTN_BWD_PDL=0 ;;
    esac
}
# one run: NAME FORM: `cutec run attention --bwd` d128 8x16x4096 under that form, into NAME.txt
one() {
    e=$(form_env "$2")
    # shellcheck disable=SC2086
    device_step 14 env $e build/cutec run attention --bwd --headdim 128 --iters 20 $shape4k | tee "$out/$1.txt"
    nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1
}
# the TFLOP/s of a run's file, empty unless it verified with 0 wrong
tops() { sed -n 's/.*verified against float64 (0 wrong.*, \([0-9.]*\) TFLOP\/s.*/\1/p' "$out/$1.txt" 2>/dev/null | head -n 1; }
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    echo "== 1. pdl on the GPU against float64, not causal (fused) and causal (two kernels)"
    # shellcheck disable=SC2086
    {
        device_step 12 env CUTEC_ATTN_BWD_PDL=1 build/cutec run attention --bwd $check
        device_step 12 env CUTEC_ATTN_BWD_PDL=1 build/cutec run attention --bwd $check --causal
    } | tee "$out/check.txt"
    echo "== 2. d128 8x16x4096 not causal: a warm-up (not counted), then the default, pdl;"
    echo "     pdl, the default"
    one warm c
    one d1 c
    one pdl1 pdl
    one pdl2 pdl
    one d2 c
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
grep -vE "^# (check|time|index)" "$log" | tail -n 40
wrong=$(grep -cE "FAILED|WRONG|^cutec|[1-9][0-9]* wrong" "$log")
checked=$(grep -c "verified against float64 (0 wrong" "$out/check.txt" 2>/dev/null)
echo "wrong/failed lines: $wrong; checks passed: $checked of 2; warm-up (not counted): $(tops warm)"
d1=$(tops d1) d2=$(tops d2)
# FORM NAME: its runs against every default run, then its "decides:" line
decide() {
    n=0 ahead=0 ahead_half=0 sum=0
    for r in 1 2; do
        x=$(tops "$1$r")
        for y in $d1 $d2; do
            echo "$1 run $r: ${x:-?} / default $y TFLOP/s, x$(ratio "$x" "$y")"
            [ -n "$x" ] || continue
            n=$((n + 1))
            ahead=$((ahead + $(bench_atleast "$x" "$y" 1.0)))
            ahead_half=$((ahead_half + $(bench_atleast "$x" "$y" 1.005)))
            sum=$(awk -v s="$sum" -v a="$x" -v b="$y" 'BEGIN { printf "%.6f", s + a / b }')
        done
    done
    mean=$(awk -v s="$sum" -v n="$n" 'BEGIN { if (n > 0) printf "%.4f", s / n }')
    echo "$1: pairs $n, ahead in $ahead, mean x${mean:-?}"
    if [ "$wrong" != 0 ] || [ "$checked" != 2 ]; then
        echo "decides: keep opt-in $2 (a wrong, failed or missing check: look first)"
    elif [ "$n" -lt 2 ]; then
        echo "decides: keep opt-in $2 (fewer than two pairs measured)"
    elif [ "$ahead" = "$n" ] && at_least "$mean" 1.003; then
        echo "decides: make default $2 (ahead of every default run)"
    elif ! at_least "$mean" 1.0 && [ "$ahead_half" = 0 ]; then
        echo "decides: delete $2 (behind the default on the mean, 0.5% ahead of no default run)"
    else
        echo "decides: keep opt-in $2 (not ahead of every default run by 0.3% on the mean)"
    fi
}
decide pdl CUTEC_ATTN_BWD_PDL=1
