#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# Issue 18, the Hopper forward's targets and decode GQA (engineer attnf3, session 30), on an
# sm_90 GPU.  Each step under a timeout and started only while the run is inside its budget
# (BUDGET_S, default 145 s; a skipped step says so), every command's output line-buffered
# (stdbuf), so that a step its timeout kills still shows what it printed:
#   `cutec run attention` checks on the GPU against float64 at odd sizes: the Hopper kernel
#   as the library builds it (d128 causal GQA: the persistent grid, two Q stages, the snake
#   order; d64 f16 and causal MQA; d128 with 160-key tiles on the persistent grid), the
#   order across heads with one Q stage, O rescaled in the turn; decode GQA;
#   `cutec bench attention`, SDPA in the same run: 8x16x4096 d128 and 16x32x2048 d64,
#   causal and not; then the forms before session 30 (SDPA not rerun: $CUTEC_TORCH_ATTENTION
#   points at no script): d128 a block a tile (--persistent 0), d64 with one Q stage and the
#   order across heads; decode 8x32x32768 d128 (32 and 8 KV heads) beside a device copy and
#   SDPA; 2x16x16384 d128 with SDPA, then causal a block a tile.
# Results go to $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf3.log"
t0=$(date +%s)
budget=${BUDGET_S:-145}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py" # the rows of a variant: SDPA ran beside the default's
old="CUTEC_ATTN_FWD_QSTAGES=1 CUTEC_ATTN_FWD_ORDER=across" # the persistent grid before session 30
run="build/cutec run attention --variant hopper"
long="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4"
d128="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
d64="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    device_step 10 $run --batch 2 --heads 6 --kv-heads 3 --seqlen 1000 --headdim 128 --causal
    device_step 10 $run --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16
    device_step 10 $run --batch 1 --heads 8 --kv-heads 1 --seqlen 2049 --headdim 64 --causal
    device_step 10 $run --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --persistent 1 --block-n 160
    device_step 10 env $old $run --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal --persistent 1
    device_step 10 env CUTEC_ATTN_FWD_WAIT=turn $run --batch 1 --heads 2 --seqlen 2500 --headdim 128
    device_step 8 build/cutec run attention --decode --batch 3 --heads 32 --kv-heads 4 --seqlen 5000 --headdim 128
    device_step 30 build/cutec bench attention --iters 10
    device_step 14 env $nosdpa build/cutec bench attention $d128 --persistent 0
    device_step 12 env $nosdpa $old build/cutec bench attention $d64
    device_step 20 build/cutec bench attention --decode --iters 10
    device_step 26 build/cutec bench attention $long
    device_step 22 env $nosdpa build/cutec bench attention $long --persistent 0
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
