#!/bin/sh
# fp8 GEMMs to issue 15's figures on a GPU (item 5; engineer fp8b), under 150 s on an H200
# after `make all tests` (the make below is then a no-op):
#   1. scaled_test on the GPU (its interpreter cases, then per-tensor and block scales at
#      1024x1000x1008 and 1021x1016x4000 against float64, amax over every element);
#   2. block scales (1x128 A, 128x128 B) e4m3 -> bf16 at 4096x7168x16384, the library's
#      cluster 2x1 (TMA multicast of B) beside 1x1 and 1x2, cuBLASLt (unscaled) and
#      torch's block-scaled _scaled_mm (where it takes them) in the same run (target 1,450);
#   3. per-tensor scales at 8192^3 and 4096^3 against torch._scaled_mm's default (target
#      110%): the library's cooperative schedule and ping-pong, each with clusters 1x1 and 2x1;
#   4. registers and spills of the block-scaled and per-tensor kernels (sm_90a).
# Every command has a timeout; the log goes to $OUT/fp8b.log (default build/device-out).
#   ITERS=10 sh scripts/device-fp8b.sh
. scripts/device-common.sh
log="$out/fp8b.log"
start=$(date +%s)
el() { echo $(($(date +%s) - start)); }
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    timeout 10 make -j16 build/cutec build/tests/kernels/gemm/scaled_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=45 device_tests kernels/gemm/scaled_test
    echo "== $(el) s: block scales, 4096x7168x16384, clusters 2x1 (the library's), 1x1, 1x2"
    fp8_bench 40 --scale block --sizes 4096x7168x16384 --cluster 2x1,1x1,1x2
    echo "== $(el) s: per-tensor scales, schedules x clusters (cuBLASLt unscaled; torch._scaled_mm default and fast)"
    fp8_bench 45 --scale tensor --sizes 8192,4096 --schedule coop,pingpong --cluster 1x1,2x1
    echo "== $(el) s: registers and spills (sm_90a): block, per-tensor"
    echo "block: $(fp8_usage --scale block)"
    echo "tensor: $(fp8_usage --scale tensor)"
    echo "== $(el) s: clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 60 "$log"
