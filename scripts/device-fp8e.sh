#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# fp8 block scales: wider tiles and the promotion between the next batch's wgmmas (issue 15
# item 5; engineer fp8e), under 150 s on an H200 after `make all tests` (the make below is
# then a no-op):
#   1. scaled_test on the GPU (the interpreter's cases, then per-tensor and block scales
#      against float64: the library's loop, load, staged, interleave; 128x160, 128x192, 256x128);
#   2. block scales (1x128 A, 128x128 B) e4m3 -> bf16 at 4096x7168x16384, the library's loop
#      (promote), tiles 128x128 (the library's: "old") and 128x160 (1,090.5 against 1,014.3 in
#      the mid pass of session 30), clusters 1x1 and 2x1, with cuBLASLt (unscaled) and torch's
#      block-scaled _scaled_mm in the same run (target 1,450);
#   3. --scale-mul turns (the warpgroups' batches take turns on the tensor core), 128x160 and
#      256x128, 1x1 (no torch);
#   4. --scale-mul interleave, 128x128 1x1 (no torch; cut by its timeout in the mid pass);
#   5. per-tensor scales in 128x256, 1x1 (the ceiling: 1,524.0 in the mid pass);
#   6. registers and spills (sm_90a) of the block-scaled kernels.
# Every command has a timeout and runs line-buffered; the log is $OUT/fp8e.log (default
# build/device-out).   ITERS=10 sh scripts/device-fp8e.sh
. scripts/device-common.sh
log="$out/fp8e.log"
start=$(date +%s)
no_torch() { CUTEC_TORCH_SCALED_MM=/dev/null && export CUTEC_TORCH_SCALED_MM; } # (in a subshell: torch's row skipped)
blk=4096x7168x16384
{
    device_head
    timeout 10 make -j16 build/cutec build/tests/kernels/gemm/scaled_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=35 device_tests kernels/gemm/scaled_test
    echo "== $(el) s: block scales, $blk, promote, tiles 128x128 (old), 128x160; 1x1, 2x1; cuBLASLt, torch"
    fp8_bench 30 --scale block --sizes $blk --cluster 1x1,2x1 --tile 128x128x128,128x160x128
    echo "== $(el) s: block scales, $blk, --scale-mul turns, 128x160, 256x128, 1x1"
    (no_torch && fp8_bench 20 --scale block --sizes $blk --cluster 1x1 --tile 128x160x128,256x128x128 --scale-mul turns)
    echo "== $(el) s: block scales, $blk, --scale-mul interleave, 128x128, 1x1"
    (no_torch && fp8_bench 18 --scale block --sizes $blk --cluster 1x1 --scale-mul interleave)
    echo "== $(el) s: per-tensor scales, $blk, 128x256, 1x1 (the ceiling)"
    (no_torch && fp8_bench 16 --scale tensor --sizes $blk --cluster 1x1 --tile 128x256x128)
    echo "== $(el) s: registers and spills (sm_90a)"
    echo "block 128x128 promote: $(fp8_usage --scale block)"
    echo "block 128x160 promote: $(fp8_usage --scale block --tile 128x160x128)"
    echo "block 128x160 turns: $(fp8_usage --scale block --tile 128x160x128 --scale-mul turns)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
