#!/bin/sh
# Issue 18, engineer attnf5 (session 33).  The mid pass (H200, 2026-11-27 16:56) timed the
# Hopper forward's softmax beside the next S (CUTEC_ATTN_FWD_OVERLAP=s and =s,free) against
# the default and SDPA: d128 8x16x4096 541.1 and 612.6 TFLOP/s against 663.4 (SDPA 680.3),
# causal 496.8 / 560.0 against 594.8, 2x16x16384 566.9 against 689.1.  Both forms were
# deleted after it (bench/RESULTS.md, docs/attention.md "Forms measured and removed"), so
# this script now only records the default beside SDPA at the same shapes (the mid pass cut
# the default's 16k causal row), on an sm_90 GPU, under ~80 s after `make all tests`
# (BUDGET_S; a step that would pass it is skipped, saying so; output line-buffered).
# Decides: nothing (no form left to decide on).
# Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf5.log"
t0=$(date +%s)
budget=${BUDGET_S:-80}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    echo "== the default at d128 8x16x4096 (SDPA beside), then 2x16x16384 (SDPA off)"
    device_step 25 build/cutec bench attention --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10
    device_step 25 env $nosdpa build/cutec bench attention --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    echo "decides: nothing (CUTEC_ATTN_FWD_OVERLAP was deleted after the mid pass; these rows are the default's)"
} >"$log" 2>&1
tail -n 40 "$log"
