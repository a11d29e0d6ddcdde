#!/bin/sh
# The Hopper attention forward on an sm_90 GPU (issue 18 item 2), most wanted first: build;
# `cutec bench attention --variant hopper` (8x16x4096 d128 and 16x32x2048 d64, causal and
# not) with torch SDPA on the same shapes in the same run; d256 at 1x16x16384 with SDPA;
# `cutec run attention --variant hopper` at odd sizes against float64; attention_test on the
# GPU (its cuda cases with both kernels against float64).  Each section is stamped with the
# time.  (Other key tiles: --block-n; the SM80 kernel: --variant sm80.)  Results go to $OUT
# (default build/device-out); the log's tail is printed.  About 4 minutes on an H100, most of
# it the benchmarks' float64 checks; the test last (SKIP_TEST=1 leaves it out).
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-hopattn: skipped: no GPU here"; exit 0; }
log="$out/hopattn.log"
stamp() { echo "== $(date -u +%T) $*"; }
{
    stamp "$(date -u +%F)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    stamp build
    make -j16 all build/tests/kernels/attention/attention_test 2>&1 | grep -E "error|warning" | head -40
    stamp "bench attention --variant hopper: cutec and torch SDPA in one run"
    timeout 100 build/cutec bench attention --variant hopper --iters 20 2>&1
    stamp "d256, 1x16x16384, with SDPA"
    timeout 70 build/cutec bench attention --variant hopper --batch 1 --heads 16 --seqlen 16384 --headdim 256 \
        --iters 5 2>&1 | tail -n 3
    stamp "run attention --variant hopper: odd sizes, GQA, causal, against float64"
    for a in "--batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal" \
             "--batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16" \
             "--batch 1 --heads 8 --kv-heads 1 --seqlen 2049 --headdim 64 --causal" \
             "--batch 2 --heads 4 --kv-heads 2 --seqlen 1500 --headdim 256"; do
        # shellcheck disable=SC2086
        timeout 30 build/cutec run attention --variant hopper $a 2>&1 | tail -n 2
    done
    [ -n "${SKIP_TEST:-}" ] || TEST_TIMEOUT=150 device_tests kernels/attention/attention_test
    stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 60 "$log"
