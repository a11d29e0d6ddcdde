#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# fp8 GEMMs toward issue 15's figures (item 5; engineer fp8c), under 150 s on an H200 after
# `make all tests` (the make below is then a no-op):
#   1. scaled_test on the GPU (interpreter cases, then per-tensor and block scales at
#      1024x1000x1008 and 1021x1016x4000 against float64, the earlier block loop too);
#   2. block scales (1x128 A, 128x128 B) e4m3 -> bf16 at 4096x7168x16384: the new main loop
#      (A's scales loaded two k-tiles ahead, multiplied at the promotion) in clusters 2x1
#      (the library's) and 1x1, each in 128x128 tiles (the library's) and 256x128
#      (two 64-row waves a warpgroup, DeepGEMM's BLOCK_M 256), then the earlier one (--scale-mul load: multiplied as
#      loaded, session 27's 941 TFLOP/s) in 2x1; each run with cuBLASLt (unscaled) and torch's
#      block-scaled _scaled_mm (target 1,450);
#   3. the same shape with per-tensor scales in the block kernel's 128x128 tile and in
#      128x256, 2x1: the kernel without promotions (what the block loop can at most reach);
#   4. per-tensor scales at 8192^3 and 4096^3 against torch._scaled_mm (target 110%),
#      cooperative, clusters 1x1 and 2x1 (ping-pong was behind in every pass);
#   5. registers and spills of the block-scaled kernels (sm_90a), new and earlier.
# Every command has a timeout and runs line-buffered; the log is $OUT/fp8c.log (default
# build/device-out).   ITERS=10 sh scripts/device-fp8c.sh
. scripts/device-common.sh
log="$out/fp8c.log"
start=$(date +%s)
{
    device_head
    timeout 10 make -j16 build/cutec build/tests/kernels/gemm/scaled_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=35 device_tests kernels/gemm/scaled_test
    echo "== $(el) s: block scales, 4096x7168x16384, new loop, clusters 2x1 (the library's), 1x1, tiles 128x128 (the library's), 256x128"
    fp8_bench 30 --scale block --sizes 4096x7168x16384 --cluster 2x1,1x1 --tile 128x128x128,256x128x128
    echo "== $(el) s: block scales, the earlier loop (scales multiplied as loaded), 2x1"
    fp8_bench 24 --scale block --sizes 4096x7168x16384 --cluster 2x1 --scale-mul load
    echo "== $(el) s: per-tensor scales in the block kernel's tile 128x128 and in 128x256, 2x1 (without promotions)"
    fp8_bench 24 --scale tensor --sizes 4096x7168x16384 --cluster 2x1 --tile 128x128x128,128x256x128
    echo "== $(el) s: per-tensor scales, 8192^3 and 4096^3 (torch._scaled_mm default and fast), coop 1x1, 2x1"
    fp8_bench 42 --scale tensor --sizes 8192,4096 --schedule coop --cluster 1x1,2x1
    echo "== $(el) s: registers and spills (sm_90a): block new, block earlier, per-tensor"
    echo "block: $(fp8_usage --scale block)"
    echo "block, mul at load: $(fp8_usage --scale block --scale-mul load)"
    echo "block, 256x128: $(fp8_usage --scale block --tile 256x128x128)"
    echo "tensor: $(fp8_usage --scale tensor)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
