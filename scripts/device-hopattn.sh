#!/bin/sh
# The Hopper attention forward on an sm_90 GPU (issue 18 item 2): build, attention_test on the
# GPU (its cuda cases with the SM80 and the Hopper kernel against float64), `cutec run
# attention --variant hopper` at odd sizes, then `cutec bench attention` of the Hopper kernel
# (8x16x4096 d128 and 16x32x2048 d64, causal and not; 1x16x16384 d256) with torch SDPA on the
# same shapes in the same run, and the SM80 kernel's d128 row beside for comparison; the test
# last.
# Results go to $OUT (default build/device-out); the log's tail is printed.  Under 4 minutes
# on an H200.  SKIP_TEST=1 leaves attention_test out.
. scripts/device-common.sh
log="$out/hopattn.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    echo "== build"
    make -j16 all build/tests/kernels/attention/attention_test 2>&1 | grep -E "error|warning" | head -40
    echo "== run attention --variant hopper on the GPU: odd sizes, GQA, causal, against float64"
    for a in "--batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal" \
             "--batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16" \
             "--batch 1 --heads 8 --kv-heads 1 --seqlen 2049 --headdim 64 --causal" \
             "--batch 2 --heads 4 --kv-heads 2 --seqlen 1500 --headdim 256"; do
        # shellcheck disable=SC2086
        timeout 60 build/cutec run attention --variant hopper $a 2>&1 | tail -n 2
    done
    echo "== bench attention --variant hopper: cutec and torch SDPA in one run"
    timeout 150 build/cutec bench attention --variant hopper --iters 20 2>&1
    timeout 60 build/cutec bench attention --variant hopper --batch 1 --heads 16 --seqlen 16384 --headdim 256 \
        --iters 10 2>&1 | tail -n 2
    echo "== the SM80 kernel, d128 non-causal (the same shape)"
    CUTEC_TORCH_ATTENTION=/dev/null timeout 60 build/cutec bench attention --variant sm80 --batch 8 --heads 16 \
        --seqlen 4096 --headdim 128 --iters 10 2>&1 | sed -n 3p
    [ -n "${SKIP_TEST:-}" ] || TEST_TIMEOUT=150 device_tests kernels/attention/attention_test
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 60 "$log"
