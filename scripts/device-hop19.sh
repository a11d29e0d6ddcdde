#!/bin/sh
# The Hopper GEMM's table by shape (hopper_auto.c; issue 15 items 1 and 5, engineer hop19),
# for the final pass: about 100 s on one H200, the build included.  Each bench runs cuBLAS in
# the same process on the same gaussian inputs, and every row is sampled against float64
# ("ok vs float64") and compared with cuBLAS's elements (diff) before it is timed.  In the order
# of what decides:
#   1. K 256 and 512 (8192 x 8192): ping-pong (pp, the library's at K <= 512) against the
#      cooperative kernel with the whole tile (coop, the library's at K 513..1024).  The mid
#      pass measured K 512 only (pp 102.6% of cuBLAS, coop 99.7%).  Decides: pp stays at
#      K <= 512 if it leads at 256 too; if coop leads at 256 by more than a point, the pp row
#      ends at K 256 - 1 next session.
#   2. 2048^3: the whole tile's store (tile) against the two-buffer TMA stores in 4 stages
#      (tma, now the library's at one wave, M N <= 2048^2 past K 1024; it led by 0.5-1.0 points
#      in four runs).  Decides: if tile leads by more than half a point, the one-wave row goes.
#      Beside them stream-K (sk: at 2048^3 it makes no runs, every tile whole, yet ran 92.4%
#      against coop's 97.1% in session 29): the same tiles, so what its rows lose is the stream-K
#      kernel's own cost (for the next engineer; the library does not pick it).
#   3. fp8 e4m3 block scales (1x128 A, 128x128 B) at 4096x7168x16384: the library's call (no
#      --tile: now 128 x 128 in 2x1 clusters, 1,142.5 TFLOP/s as an explicit tile at 13:07 UTC)
#      beside cuBLASLt unscaled, no torch.  Checks that the table's pick runs and is right.
# First hopper_auto_test (the table's rows, host only).  Built beforehand (`make all tests`;
# the make below is then a no-op); every command under a timeout, no step starting past
# BUDGET_S (default 62 s).  Log: $OUT/hop19.log (default build/device-out).
#   ITERS=10 sh scripts/device-hop19.sh
. scripts/device-common.sh
log="$out/hop19.log"
start=$(date +%s)
budget=${BUDGET_S:-62}
{
    gemm_gpu_head
    timeout 40 make -j16 build/cutec build/tests/kernels/gemm/hopper_auto_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=10 device_tests kernels/gemm/hopper_auto_test
    echo "== 1. K 256 and 512: pp (the library's) / coop"
    device_late K256 || device_bench_bf16 30 8192x8192x256,8192x8192x512 --schedule pingpong,coop --store tile |
        stamp | quiet
    echo "== 2. 2048^3: the whole tile / two buffers (the library's); coop / sk"
    device_late 2048 || device_bench_bf16 14 2048 --schedule coop,streamk --store tile,tma | stamp | quiet
    echo "== 3. fp8 block scales, the library's tile (no torch)"
    device_late fp8 || (CUTEC_TORCH_SCALED_MM=/dev/null && export CUTEC_TORCH_SCALED_MM &&
        fp8_bench 24 --scale block --sizes 4096x7168x16384 | stamp | quiet)
    device_end
} >"$log" 2>&1
cat "$log"
