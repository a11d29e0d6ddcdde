#!/bin/sh
# The attention backward and decode pass on a GPU machine (issue 18 items: backward, decode):
# build; attention_bwd_test and attention_decode_test on the GPU (moderate sizes and a 32k KV
# cache against float64) and attention_test (the forward, whose body decode shares);
# `cutec run attention --bwd` at odd sizes; `cutec bench attention --bwd` (8x16x4096 d128 and
# 16x32x2048 d64, causal and not) with SDPA's backward in the same run; `cutec bench attention
# --decode` (8x32x32768 d128, 32 and 8 KV heads) beside a device copy and SDPA, and a sweep of
# the split count; the kernels' registers and spills.  Results in $OUT (default
# build/device-out), the logs tarred; the log's tail printed.  Under 4 minutes on an H200.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-attnbwd: skipped: no GPU here"; exit 0; }
log="$out/attnbwd.log"
{
    device_begin
    device_tests kernels/attention/attention_bwd_test kernels/attention/attention_decode_test \
        kernels/attention/attention_varlen_test kernels/attention/attention_test
    echo "== run attention --bwd on the GPU: odd sizes, GQA, causal, sampled rows against float64"
    for a in "--batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal" \
             "--batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16"; do
        # shellcheck disable=SC2086
        timeout 60 build/cutec run attention --bwd $a 2>&1 | tail -n 2
    done
    echo "== bench attention --bwd: cutec and torch SDPA's backward in one run"
    timeout 150 build/cutec bench attention --bwd --iters 10 2>&1
    echo "== bench attention --decode: GB/s of K and V, a D2D copy and SDPA in one run"
    timeout 100 build/cutec bench attention --decode --iters 20 2>&1
    for s in 16 32 64 128; do
        timeout 30 build/cutec bench attention --decode --batch 8 --heads 32 --kv-heads 8 --seqlen 32768 --splits $s --iters 10 2>&1 | tail -n 1
    done
    echo "== registers and spills (ptxas -v, sm_90a)"
    for d in 64 128; do
        build/cutec compile attention --bwd --headdim $d --arch sm_90a --emit usage 2>&1 | grep -E "entry|registers|spill" | tr '\n' ' '
        echo " <- bwd d$d"
        build/cutec compile attention --decode --headdim $d --arch sm_90a --emit usage 2>&1 | grep -E "entry|registers|spill" | tr '\n' ' '
        echo " <- decode d$d"
    done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tar -czf /tmp/attnbwd-logs.tar.gz -C "$out" . 2>/dev/null && mv /tmp/attnbwd-logs.tar.gz "$out/"
tail -n 70 "$log"
