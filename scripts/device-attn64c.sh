#!/bin/sh
# Issue 18, engineer attn64c (session 34): the Hopper forward at head dim 64 causal, 16x32x2048,
# the forward's one row behind SDPA (session 33: 350.0 TFLOP/s against 395.1).  The default
# (128 rows x 128 keys, hopper_plan.c's D64_CAUSAL) beside forms that spread the per-Q-tile
# costs (bench/RESULTS.md, attn64c: ~555 instructions a warp a Q tile beside ~500 a key tile,
# the mask 240 more on the diagonal), each opt-in by flag or variable (no new kernel code):
#   --block-m 192 --block-n 128  three consumer warpgroups (FlashAttention 3's causal d64 tile;
#                                ptxas sm_90a: 40 bytes spilled at the 160-register bound)
#   --block-n 64                 64-key tiles: finer pipeline steps, the same masked area (the
#                                diagonal's 128 x 128 in two halves), twice the per-key-tile
#                                costs (168 registers, no spills)
#   CUTEC_ATTN_FWD_ORDER=across  the persistent grid's longest Q tiles first across every head
# Every form is first checked on the GPU against float64 (`cutec run`, odd length, GQA), then
# benched (its rows checked too); the default's run has SDPA beside and its non-causal row is
# the guard (D64_CAUSAL touches no non-causal tile: recorded, not decided).  Each form is its own process, back to back after the default.
# Rule: a tile whose causal row is >= 1.015 x the default's, with no row WRONG, is the new
# default: "decides: make default" names the {rows, keys} to write in D64_CAUSAL (the one-line
# flip, src/kernels/attention/hopper_plan.c); else "keep opt-in" (they are existing knobs).  The
# order: across is also every other causal shape's (d128 measured slower), so faster here says
# "keep opt-in" with the figure (a d64-only order would be a plan line).
# Under ~80 s on one H200 after `make all tests` (BUDGET_S; a step past it is skipped, saying
# so).  Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attn64c.log"
t0=$(date +%s)
budget=${BUDGET_S:-80}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
shape="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
check="--variant hopper --batch 1 --heads 4 --kv-heads 2 --seqlen 777 --headdim 64 --causal --iters 1"
# the causal row's TFLOP/s of a bench log ("" if missing or WRONG)
causal_tops() { awk '/^(bf16|f16) / && / causal/ && !/WRONG/ && $(NF-3) ~ /^[0-9.]+$/ { print $(NF-3); exit }' "$1"; }
decide() # NAME FILE BASE ROWS,KEYS
{
    v=$(causal_tops "$2" 2>/dev/null)
    if [ -z "$v" ] || [ -z "$3" ]; then echo "decides: $1: keep opt-in (no figure: '$v' against '$3')"; return; fi
    if awk -v a="$v" -v b="$3" 'BEGIN { exit !(a >= 1.015 * b) }'; then
        if [ -n "$4" ]; then echo "decides: $1: make default ($v against $3 TFLOP/s): D64_CAUSAL = {$4} in hopper_plan.c"
        else echo "decides: $1: keep opt-in, but faster ($v against $3 TFLOP/s): a d64-only order is a plan line"; fi
    else echo "decides: $1: keep opt-in ($v against $3 TFLOP/s)"; fi
}
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    echo "== checks against float64 on the GPU (B1 H4 G2 S777 d64 causal)"
    device_step 8 build/cutec run attention $check
    device_step 8 build/cutec run attention $check --block-m 192 --block-n 128
    device_step 8 build/cutec run attention $check --block-n 64
    device_step 8 env CUTEC_ATTN_FWD_ORDER=across build/cutec run attention $check
    echo "== the default, SDPA beside (16x32x2048 d64, non-causal and causal)"
    device_step 22 build/cutec bench attention $shape | tee "$out/attn64c-default.txt"
    echo "== 192 rows x 128 keys"
    device_step 15 env $nosdpa build/cutec bench attention $shape --block-m 192 --block-n 128 | tee "$out/attn64c-192.txt"
    echo "== 64-key tiles"
    device_step 15 env $nosdpa build/cutec bench attention $shape --block-n 64 | tee "$out/attn64c-64.txt"
    echo "== the order across heads"
    device_step 15 env $nosdpa CUTEC_ATTN_FWD_ORDER=across build/cutec bench attention $shape | tee "$out/attn64c-across.txt"
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    base=$(causal_tops "$out/attn64c-default.txt" 2>/dev/null)
    decide "192 rows x 128 keys" "$out/attn64c-192.txt" "$base" "192, 128"
    decide "64-key tiles" "$out/attn64c-64.txt" "$base" "128, 64"
    decide "CUTEC_ATTN_FWD_ORDER=across" "$out/attn64c-across.txt" "$base" ""
} >"$log" 2>&1
tail -n 40 "$log"
