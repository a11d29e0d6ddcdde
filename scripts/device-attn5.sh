#!/bin/sh
# Issue 18, the Hopper forward's tiles and grid (engineer attn5, session 32), on an sm_90 GPU,
# under 150 s on an H200.  The default (d128: a block a tile, 128x176 non-causal; causal and
# d64 on the persistent grid) beside the forms no pass has timed, each picked by the CLI's own
# flags (no opt-in in the library: what wins becomes hopper_plan.c / compile.c's choice):
#   P160  d128 --persistent 1 --block-n 160: the persistent grid with Q in two stages (they
#         fit beside two K and V stages of 160 keys, not of 176), so the next tile's Q loads
#         while this one runs (one Q stage on the persistent grid lost at d128: the next
#         tile's first S waited for Q at every tile); causal at 160 keys (8 bytes spilled);
#   P144  the same at 144 keys (no spills causal or not);
#   P128  the same at 128 keys (4096 keys in 32 whole tiles, none padded: 176 pads to 4224,
#         3% of the products wasted on the masked last tile);
#   T128  128 keys a block a tile (three K and V stages), the padding without the grid;
#   D64   d64 --block-m 128 --block-n 192: two consumer warpgroups of 192-key tiles (no
#         spills) against the default's three of 128 (non-causal) and two of 128 (causal);
#   HSTU  head dim 64 with 64-row tiles (CUTEC_HSTU_BLOCK_M=64) against its 128 rows' 99.8 /
#         93.1 TFLOP/s of the 13:07 pass (H200); d128 runs 64 rows by default since that
#         pass: checked here on the GPU against float64.
# Each step under a timeout and started only while the run is inside its budget (BUDGET_S,
# default 150; a skipped step says so), output line-buffered.  Most important first: the GPU
# checks against float64 at odd sizes (GQA, partial tiles; the backward's too: its fused dQ and
# turns were deleted, the default's dK/dV kernel no longer enters the ping-pong ring it did
# not use), then `cutec bench attention`
# (every row checked against float64) with SDPA in the same run for the default, the forms
# after it with SDPA off ($nosdpa), then 2x16x16384, D64, then HSTU where time is left.
# Decides: a form faster than the default at both d128 shapes (4096 and 16384) becomes the
# default there (hopper_plan.c / compile.c), else nothing changes; HSTU d64 m64 likewise.
# Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attn5.log"
t0=$(date +%s)
budget=${BUDGET_S:-150}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
run="build/cutec run attention --variant hopper"
d128="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
d64="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
long="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4"
hstu64="--batch 16 --heads 4 --seqlen 4096 --headdim 64 --iters 5"
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    nvidia-smi -L >/dev/null 2>&1 || { echo "== no GPU: every step below skipped"; budget=0; }
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    echo "== checks on the GPU against float64"
    device_step 6 $run --batch 2 --heads 6 --kv-heads 3 --seqlen 1100 --headdim 128 --persistent 1 --block-n 160
    device_step 6 $run --batch 2 --heads 6 --kv-heads 3 --seqlen 1000 --headdim 128 --causal --persistent 1 --block-n 144
    device_step 6 $run --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16 --block-m 128 --block-n 192
    device_step 8 $run --bwd --batch 2 --heads 6 --kv-heads 3 --seqlen 1000 --headdim 128 --causal
    device_step 6 build/cutec run hstu --batch 2 --heads 4 --seqlen 1000 --seqlen-k 1100 --headdim 128 --causal
    device_step 6 env CUTEC_HSTU_BLOCK_M=64 build/cutec run hstu --batch 3 --heads 2 --seqlen 777 --seqlen-k 1025 \
        --headdim 64 --dtype f16
    echo "== the default, SDPA beside"
    device_step 32 build/cutec bench attention --iters 10
    echo "== P160, P144, P128, T128 at d128"
    device_step 14 env $nosdpa build/cutec bench attention $d128 --persistent 1 --block-n 160
    device_step 14 env $nosdpa build/cutec bench attention $d128 --persistent 1 --block-n 144
    device_step 14 env $nosdpa build/cutec bench attention $d128 --persistent 1 --block-n 128
    device_step 14 env $nosdpa build/cutec bench attention $d128 --persistent 0 --block-n 128
    echo "== 2x16x16384 d128: the default (SDPA beside), then P160"
    device_step 26 build/cutec bench attention $long
    device_step 16 env $nosdpa build/cutec bench attention $long --persistent 1 --block-n 160
    echo "== D64"
    device_step 11 env $nosdpa build/cutec bench attention $d64 --block-m 128 --block-n 192
    echo "== HSTU d64 16x4x4096 with 64-row tiles (128 rows, the 13:07 pass: 99.8 / 93.1 TFLOP/s)"
    device_step 15 env CUTEC_TORCH_HSTU=/dev/null CUTEC_HSTU_BLOCK_M=64 build/cutec bench hstu $hstu64
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
