#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# fp8 block scales: the register loop against the staged one (issue 15 item 5; engineer fp8d), under 150 s on
# an H200 after `make all tests` (the make below is then a no-op):
#   1. scaled_test on the GPU (interpreter cases, then per-tensor and block scales at
#      1024x1000x1008 and 1021x1016x4000 against float64; registers, staged and load loops);
#   2. block scales (1x128 A, 128x128 B) e4m3 -> bf16 at 4096x7168x16384, the library's loop
#      (--scale-mul promote: scales in registers two k-tiles ahead) in clusters 1x1 and 2x1
#      (the library's), tiles 128x128 (the library's) and 256x128, cuBLASLt (unscaled) and
#      torch's block-scaled _scaled_mm in the same run (target 1,450);
#   3. the same shape, the staged loop (--scale-mul staged: cp.async to shared memory, 898 in
#      the mid pass of session 29) 2x1, 128x128, and the per-tensor kernel in 128x128 and
#      128x256, 2x1 (the bounds; torch skipped: CUTEC_TORCH_SCALED_MM=/dev/null);
#   4. per-tensor scales at 8192^3 and 4096^3 against torch._scaled_mm (target 110%), 2x1;
#   5. registers and spills of the block-scaled kernels (sm_90a), promote and staged.
# Every command has a timeout and runs line-buffered; the log is $OUT/fp8d.log (default
# build/device-out).   ITERS=10 sh scripts/device-fp8d.sh
. scripts/device-common.sh
log="$out/fp8d.log"
start=$(date +%s)
no_torch() { CUTEC_TORCH_SCALED_MM=/dev/null && export CUTEC_TORCH_SCALED_MM; } # (in a subshell: torch's row skipped)
blk=4096x7168x16384
{
    device_head
    timeout 10 make -j16 build/cutec build/tests/kernels/gemm/scaled_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=35 device_tests kernels/gemm/scaled_test
    echo "== $(el) s: block scales, $blk, the library's loop (promote), 1x1, 2x1, tiles 128x128, 256x128"
    fp8_bench 30 --scale block --sizes $blk --cluster 1x1,2x1 --tile 128x128x128,256x128x128
    echo "== $(el) s: block scales, $blk, the staged loop (--scale-mul staged), 2x1, 128x128"
    (no_torch && fp8_bench 18 --scale block --sizes $blk --cluster 2x1 --scale-mul staged)
    echo "== $(el) s: per-tensor scales, $blk, tiles 128x128 and 128x256, 2x1"
    (no_torch && fp8_bench 20 --scale tensor --sizes $blk --cluster 2x1 --tile 128x128x128,128x256x128)
    echo "== $(el) s: per-tensor scales, 8192^3 and 4096^3 (torch._scaled_mm default and fast), coop 2x1"
    fp8_bench 28 --scale tensor --sizes 8192,4096 --schedule coop --cluster 2x1
    echo "== $(el) s: registers and spills (sm_90a)"
    echo "block, promote: $(fp8_usage --scale block)"
    echo "block, staged: $(fp8_usage --scale block --scale-mul staged)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
