#!/bin/sh
# The FlashAttention 2 (SM80 instructions) pass on a GPU machine (issue 18 item 1): build,
# the attention test on the GPU (its cuda path: moderate sizes against float64), `cutec run
# attention` at odd sizes, `cutec bench attention` at 8x16x4096 d128 and 16x32x2048 d64,
# causal and not, with torch SDPA on the same shapes in the same run, and the kernels'
# registers and spills.  Every run, bench and compile names `--variant sm80`: on sm_90 AUTO
# runs the Hopper kernel (device-h200.sh and device-hopattn.sh time that one), so without it
# this pass timed the Hopper kernel under FlashAttention 2's name.  Results go to $OUT
# (default build/device-out), tarred with the logs; the log's tail is printed.  Under 4
# minutes on an H200.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-fa2: skipped: no GPU here"; exit 0; }
log="$out/fa2.log"
{
    device_begin
    device_tests kernels/attention/attention_test
    echo "== run attention on the GPU: odd sizes, GQA, causal, checked against float64"
    for a in "--batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal" \
             "--batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16" \
             "--batch 1 --heads 8 --kv-heads 1 --seqlen 2049 --headdim 64 --causal" \
             "--batch 2 --heads 4 --kv-heads 2 --seqlen 1500 --headdim 256"; do
        # shellcheck disable=SC2086
        timeout 120 build/cutec run attention --variant sm80 $a 2>&1 | tail -n 2
    done
    echo "== bench attention: cutec and torch SDPA (bench/torch_attention.py) in one run"
    timeout 300 build/cutec bench attention --variant sm80 --iters 20 2>&1
    timeout 120 build/cutec bench attention --variant sm80 --batch 4 --heads 16 --seqlen 4096 --headdim 256 --iters 10 2>&1 | tail -n 2
    echo "== registers and spills (ptxas -v, sm_90a; the test reports sm_80)"
    for d in 64 128 256; do for c in "" "--causal"; do
        # shellcheck disable=SC2086
        build/cutec compile attention --variant sm80 --headdim $d --arch sm_90a --emit usage $c 2>&1 | grep -E "registers|spill" | tr '\n' ' '
        echo " <- d$d $c"
    done; done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tar -czf /tmp/fa2-logs.tar.gz -C "$out" . 2>/dev/null && mv /tmp/fa2-logs.tar.gz "$out/"
tail -n 60 "$log"
