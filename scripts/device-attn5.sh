#!/bin/sh
# Issue 18, engineer attn5 (session 32): the final pass's check of two defaults this branch
# made from its mid pass (H200, 2026-11-27 13:34-13:36, bench/RESULTS.md's attn5 section),
# each beside the form it replaced in the same run, on an sm_90 GPU, under ~85 s after the
# build (BUDGET_S; a step that would pass it is skipped, saying so; output line-buffered):
#   1. the Hopper forward at head dim 128 non-causal: the persistent grid, 160-key tiles, Q
#      in two stages (mid pass: 680.6 TFLOP/s at 8x16x4096, 714.7 at 2x16x16384) against a
#      block a tile of 176 keys, the old default (`--persistent 0 --block-n 176`: 669.1,
#      683.8);
#   2. HSTU at head dim 64 in 64-row tiles of 4 warps (mid pass: 16x4x4096 153.5 against the
#      13:07 pass's 99.8 with 128 rows; causal not timed yet) against 128 rows
#      (CUTEC_HSTU_BLOCK_M=128).
# First each new default on the GPU against float64 at odd sizes (GQA, partial tiles).
# Decides: where the old form is faster by more than 1% in this run, put it back (1:
# compile.c's `automatic` without d128 non-causal and hopper_plan.c's `wide` 176 at d128;
# 2: hstu.c's m64 at head dim 128 only); else the new default stays and this script may go.
# Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attn5.log"
t0=$(date +%s)
budget=${BUDGET_S:-85}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
d128="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
long="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4"
hstu64="--batch 16 --heads 4 --seqlen 4096 --headdim 64 --iters 5"
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    echo "== the new defaults on the GPU against float64"
    device_step 6 build/cutec run attention --batch 2 --heads 6 --kv-heads 3 --seqlen 1100 --headdim 128
    device_step 6 build/cutec run hstu --batch 3 --heads 2 --seqlen 777 --seqlen-k 1025 --headdim 64 --causal
    echo "== 1. d128 8x16x4096: the default (SDPA beside), then the old form (its causal row: 176 keys, not a default)"
    device_step 22 build/cutec bench attention $d128
    device_step 13 env $nosdpa build/cutec bench attention $d128 --persistent 0 --block-n 176
    echo "== 2. HSTU d64 16x4x4096: 64 rows (the default), then 128"
    device_step 13 env CUTEC_TORCH_HSTU=/dev/null build/cutec bench hstu $hstu64
    device_step 13 env CUTEC_TORCH_HSTU=/dev/null CUTEC_HSTU_BLOCK_M=128 build/cutec bench hstu $hstu64
    echo "== 1 at 2x16x16384: the default, then the old form (SDPA off)"
    device_step 14 env $nosdpa build/cutec bench attention $long
    device_step 14 env $nosdpa build/cutec bench attention $long --persistent 0 --block-n 176
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 60 "$log"
