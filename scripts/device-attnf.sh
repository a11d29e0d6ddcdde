#!/bin/sh
# Issue 18 forward and decode on an sm_90 GPU (engineer attnf, session 28).  Each step under
# a timeout and started only while the run is inside its budget (BUDGET_S, default 145 s; a
# skipped step says so); every command's output unbuffered (stdbuf), so that a step its
# timeout kills still shows what it printed:
#   `cutec run attention` checks on the GPU against float64 at odd sizes (the Hopper
#   kernel: d128 causal GQA, d64 f16, d64 causal MQA, d256 with a block a tile; decode GQA);
#   `cutec bench attention --decode`: 8x32x32768 d128, 32 and 8 KV heads, GB/s of K and V
#   read beside a device copy of the same bytes and torch SDPA, all in the same run (mid
#   pass: 94.0% / 92.3% of the copy, 93.3% / 100.7% of SDPA);
#   the forward with SDPA beside: 8x16x4096 d128 and 16x32x2048 d64 causal and not on the
#   persistent grid (d64 non-causal: 192-row Q tiles, three consumer warpgroups in a ring;
#   causal 128 rows, which the mid pass found faster), then d128 with a block a tile
#   (--persistent 0, the mid pass's grid: 657.4 / 576.2), the SM80 kernel at 8x16x4096 d128,
#   2x16x16384 d128 (mid pass 720.3 / 687.7), and decode GQA with 24 splits (2 waves).
# Results go to $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf.log"
t0=$(date +%s)
budget=${BUDGET_S:-145}
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all 2>&1 |
        grep -E "error|warning" | head -20
    # the kernels against float64 on the GPU at odd sizes (partial tiles, grouped-query; the
    # test binaries' interpreter parts outlast a step here: the mid pass killed them there)
    device_step 10 build/cutec run attention --variant hopper --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal
    device_step 10 build/cutec run attention --variant hopper --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16
    device_step 10 build/cutec run attention --variant hopper --batch 1 --heads 8 --kv-heads 1 --seqlen 2049 --headdim 64 --causal
    device_step 10 build/cutec run attention --variant hopper --batch 2 --heads 4 --kv-heads 2 --seqlen 1500 --headdim 256 --persistent 0
    device_step 10 build/cutec run attention --decode --batch 3 --heads 32 --kv-heads 4 --seqlen 5000 --headdim 128
    device_step 30 build/cutec bench attention --decode --iters 20
    device_step 30 build/cutec bench attention --iters 10
    device_step 20 build/cutec bench attention --persistent 0 --iters 10 --batch 8 --heads 16 --seqlen 4096 --headdim 128
    device_step 20 build/cutec bench attention --variant sm80 --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 5
    device_step 20 build/cutec bench attention --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5
    device_step 15 build/cutec bench attention --decode --batch 8 --heads 32 --kv-heads 8 --seqlen 32768 --splits 24 --iters 20
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 60 "$log"
