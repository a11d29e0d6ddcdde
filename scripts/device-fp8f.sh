#!/bin/sh
# fp8 block scales: the library's tile by shape (hopper_auto.c: 128 x 160 in 2x1 clusters
# where its waves fill 132 SMs better, else 128 x 128 alone; issue 15 item 5; engineer
# fp8f), under 150 s on an H200 after `make all tests` (the make below is then a no-op):
#   1. block scales (1x128 A, 128x128 B) e4m3 -> bf16 at 4096x7168x16384, the library's call
#      (no --tile: 128x160 2x1) with cuBLASLt (unscaled) and torch's block-scaled
#      _scaled_mm in the same process (target 1,450);
#   2. beside it (no torch): 128x128 and 128x160 in 1x1 and 2x1 (128x128 2x1: the library's
#      tile before this branch);
#   3. the model's other side: 4096x4096x16384, 128x128 and 128x160 in 1x1 and 2x1 (the
#      library's: 128x128 1x1, as 7 waves of 160-wide tiles do not beat 8 of 128-wide ones
#      by the 1.07);
#   4. scaled_test's GPU cases against float64 (CUTEC_TEST_GPU_ONLY=1: CI runs the
#      interpreter's), under 60 s;
#   5. registers and spills (sm_90a) of the library's block-scaled kernels.
# Every command has a timeout and runs line-buffered; the log is $OUT/fp8f.log (default
# build/device-out).   ITERS=10 sh scripts/device-fp8f.sh
. scripts/device-common.sh
log="$out/fp8f.log"
start=$(date +%s)
blk=4096x7168x16384
sq=4096x4096x16384
{
    device_head
    timeout 20 make -j16 build/cutec build/tests/kernels/gemm/scaled_test 2>&1 | grep -E "error|warning" | head -20
    echo "== $(el) s: block scales, $blk, the library's tile (no --tile), cuBLASLt, torch"
    fp8_bench 35 --scale block --sizes $blk
    echo "== $(el) s: block scales, $blk, 128x128 and 128x160 in 1x1 and 2x1 (the old default: 128x128 2x1; no torch)"
    (CUTEC_TORCH_SCALED_MM=/dev/null && export CUTEC_TORCH_SCALED_MM &&
        fp8_bench 24 --scale block --sizes $blk --tile 128x128x128,128x160x128 --cluster 1x1,2x1)
    echo "== $(el) s: block scales, $sq, 128x128 and 128x160 in 1x1 and 2x1 (the library's: 128x128 1x1; no torch)"
    (CUTEC_TORCH_SCALED_MM=/dev/null && export CUTEC_TORCH_SCALED_MM &&
        fp8_bench 24 --scale block --sizes $sq --tile 128x128x128,128x160x128 --cluster 1x1,2x1)
    echo "== $(el) s: scaled_test on the GPU"
    CUTEC_TEST_GPU_ONLY=1 TEST_TIMEOUT=55 device_tests kernels/gemm/scaled_test
    echo "== $(el) s: registers and spills (sm_90a)"
    echo "block, the library's at $blk: $(fp8_usage --scale block --m 4096 --n 7168 --k 16384)"
    echo "block 128x128 1x1: $(fp8_usage --scale block --tile 128x128x128 --cluster 1x1)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
