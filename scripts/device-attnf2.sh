#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# Issue 18, the Hopper forward's softmax beside P V (engineer attnf2, session 29), on an
# sm_90 GPU.  Each step under a timeout and started only while the run is inside its budget
# (BUDGET_S, default 145 s; a skipped step says so), every command's output unbuffered
# (stdbuf), so that a step its timeout kills still shows what it printed:
#   `cutec run attention` checks on the GPU against float64 at odd sizes (the Hopper
#   kernel: d128 causal GQA, d128 long keys with CUTEC_ATTN_FWD_WAIT=after (O's rescale
#   skipped in some tiles), d64 f16 on
#   192-row tiles, d64 causal MQA, d256; decode GQA);
#   `cutec bench attention` with torch SDPA in the same run: 8x16x4096 d128 and 16x32x2048
#   d64, causal and not, the default then CUTEC_ATTN_FWD_WAIT=after (the softmax before the
#   wait for P V: the mid pass of session 29 measured it slower, so it is opt-in); the
#   same for 2x16x16384 d128; decode 8x32x32768 d128, 32 and 8 KV heads, beside a device
#   copy and SDPA.
# Results go to $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf2.log"
t0=$(date +%s)
budget=${BUDGET_S:-145}
after="env CUTEC_ATTN_FWD_WAIT=after"
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    device_step 10 build/cutec run attention --variant hopper --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal
    device_step 10 $after build/cutec run attention --variant hopper --batch 1 --heads 1 --seqlen 2500 --headdim 128
    device_step 10 build/cutec run attention --variant hopper --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16
    device_step 10 build/cutec run attention --variant hopper --batch 1 --heads 8 --kv-heads 1 --seqlen 2049 --headdim 64 --causal
    device_step 10 build/cutec run attention --variant hopper --batch 2 --heads 4 --kv-heads 2 --seqlen 1500 --headdim 256
    device_step 8 build/cutec run attention --decode --batch 3 --heads 32 --kv-heads 4 --seqlen 5000 --headdim 128
    device_step 30 build/cutec bench attention --iters 10
    device_step 30 $after build/cutec bench attention --iters 10
    device_step 18 build/cutec bench attention --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4
    device_step 18 $after build/cutec bench attention --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4
    device_step 20 build/cutec bench attention --decode --iters 10
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 70 "$log"
