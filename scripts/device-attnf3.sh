#!/bin/sh
# Issue 18, the Hopper forward's targets and decode GQA (engineer attnf3, session 30), on an
# sm_90 GPU.  Each step under a timeout and started only while the run is inside its budget
# (BUDGET_S, default 145 s; a skipped step says so), every command's output line-buffered
# (stdbuf), so that a step its timeout kills still shows what it printed:
#   `cutec run attention` checks on the GPU against float64 at odd sizes: the Hopper kernel
#   as the library builds it (d128 causal GQA), then with CUTEC_ATTN_FWD_WAIT=turn (O's
#   rescale in the next turn, between S's issue and P V's: FlashAttention 3's order) and
#   =after,turn (that, and the softmax before the wait for P V), and with
#   CUTEC_ATTN_FWD_QSTAGES=2 (the persistent grid's Q in two stages) and the snake order;
#   decode GQA;
#   `cutec bench attention`, SDPA in the same run: 8x16x4096 d128 and 16x32x2048 d64,
#   causal and not, the default, then with =turn (SDPA not rerun: $CUTEC_TORCH_ATTENTION
#   points at no script); decode 8x32x32768 d128 (32 and 8 KV heads) beside a device copy
#   and SDPA; 2x16x16384 d128 with SDPA; then with CUTEC_ATTN_FWD_QSTAGES=2 and
#   CUTEC_ATTN_FWD_ORDER=snake (causal tiles on the persistent grid in the snake order):
#   8x16x4096 d128 on the persistent grid (non-causal: its 176-key tiles, one Q stage),
#   16x32x2048 d64; 8x16x4096 d128 on the persistent grid with 160-key tiles and two Q
#   stages; =after,turn at d128; decode with 8 KV heads in 24 splits (the library picks 12
#   on 132 SMs).
# Results go to $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf3.log"
t0=$(date +%s)
budget=${BUDGET_S:-145}
turn="env CUTEC_ATTN_FWD_WAIT=turn"
both="env CUTEC_ATTN_FWD_WAIT=after,turn"
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py" # the rows of a variant: SDPA ran beside the default's
run="build/cutec run attention --variant hopper"
long="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4"
d128="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
q2="env CUTEC_ATTN_FWD_QSTAGES=2"
d64="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
snake="CUTEC_ATTN_FWD_QSTAGES=2 CUTEC_ATTN_FWD_ORDER=snake" # two Q stages where they fit, causal tiles in the snake order
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    device_step 10 $run --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal
    device_step 10 $turn $run --batch 1 --heads 2 --seqlen 2500 --headdim 128
    device_step 10 $both $run --batch 1 --heads 2 --kv-heads 1 --seqlen 2500 --headdim 128
    device_step 10 $turn $run --batch 1 --heads 8 --kv-heads 1 --seqlen 2049 --headdim 64 --causal
    device_step 10 $q2 $run --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --persistent 1 --block-n 160
    device_step 10 $q2 $run --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16
    device_step 10 env $snake $run --batch 2 --heads 6 --kv-heads 3 --seqlen 1000 --headdim 128 --causal --persistent 1
    device_step 8 build/cutec run attention --decode --batch 3 --heads 32 --kv-heads 4 --seqlen 5000 --headdim 128
    device_step 30 build/cutec bench attention --iters 10
    device_step 22 env $nosdpa CUTEC_ATTN_FWD_WAIT=turn build/cutec bench attention --iters 10
    device_step 20 build/cutec bench attention --decode --iters 10
    device_step 18 build/cutec bench attention $long
    device_step 14 env $nosdpa $snake build/cutec bench attention $d128 --persistent 1
    device_step 14 env $nosdpa $snake build/cutec bench attention $d64
    device_step 14 env $nosdpa CUTEC_ATTN_FWD_QSTAGES=2 build/cutec bench attention $d128 --persistent 1 --block-n 160
    device_step 14 env $nosdpa CUTEC_ATTN_FWD_WAIT=after,turn build/cutec bench attention $d128
    device_step 8 env $nosdpa build/cutec bench attention --decode --batch 8 --heads 32 --kv-heads 8 --seqlen 32768 --splits 24
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
