#!/bin/sh
# The lead's second pass of session 39 (about 60 s on one H200; log $OUT/lead39c.log):
#  1. hstu39's jagged HSTU on the GPU (hstu_jagged_test: both kernels on sm_90) and the SM80
#     kernel's new (B, H, Q tile) grid timed at the example's 4x4x8192 d128 and 16x4x4096 d64
#     (session 32: 172.6 / causal 154.3 at d128, the old grid; no form to turn with: a regression
#     beyond the processes' spread says revert `raster_bhq`), and a jagged shape by the Hopper kernel;
#  2. attnb39's 16-byte dQ store (the only form now) beside SDPA's backward at both of issue 18's
#     shapes (94.7 / 93.1% in session 38).
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead39c: skipped: no GPU here"; exit 0; }
log="$out/lead39c.log"
start=$(date +%s) budget=${BUDGET_S:-60}
{
    device_head
    echo "== 1. hstu $(el_s)"
    device_late "hstu_jagged_test" || timeout 30 build/tests/kernels/attention/hstu_jagged_test 2>&1 | tail -n 4
    for v in sm80 hopper; do
        device_late "bench hstu $v" || timeout 20 build/cutec bench hstu --variant $v --iters 10 2>&1 | tail -n 3
    done
    device_late "jagged run" || timeout 15 build/cutec run hstu --variant hopper --jagged 4000,1,8192,0,3000 --heads 4 --headdim 128 --causal 2>&1 | tail -n 1
    device_late "jagged bench" || timeout 15 build/cutec bench hstu --variant hopper --jagged 4000,1,8192,0,3000 --heads 4 --headdim 128 --iters 10 2>&1 | tail -n 2
    echo "== 2. the backward beside SDPA's $(el_s)"
    device_late "bwd" || timeout 45 build/cutec bench attention --bwd --iters 10 2>&1 | tail -n 6
    device_end
} 2>&1 | tee "$log"
