#!/bin/sh
# The Hopper bf16 GEMM against cuBLAS (issue 15 item 1, engineer hop19): the table by shape
# (hopper_auto.c) and the opt-in forms, each bench with cuBLAS in the same process on the same
# gaussian inputs (every row sampled against float64 and compared with cuBLAS's elements),
# in this order (what decides first):
#   1. 8192^3, 4096^3, 2048^3: the cooperative kernel (coop) and ping-pong (pp, 128 x 128 a
#      warpgroup), 1x1 and 2x1, the whole tile's store.  The library's: 2x1 coop at 8192^3,
#      1x1 coop below.  Does ping-pong (one warpgroup's epilogue under the other's wgmmas)
#      lead where a block has one or two tiles (2048^3: 128 tiles on 132 SMs)?
#   2. K 512 and 256 (8192 x 8192): ping-pong (the library's at K <= 512) against coop 1x1
#      with the whole tile (the library's at K 513..1024, from 8192x8192x1024: 101.8% against
#      100.0%), and coop in 128 x 128 tiles (twice the tiles: a block's next tile loads under
#      its epilogue; pp 128 x 256 is refused, a row saying so).  If coop leads at both, the
#      K <= 512 row goes (coop for all K <= 1024, in 128 x 128 tiles if those lead).
#   3. CUTEC_GEMM_HOPPER_ORDER=snake (hopper.c: the raster's odd bands walk M upwards), a
#      process of its own with cuBLAS again: 8192^3 and 4096^3, 1x1 and 2x1.  Made the
#      library's order only if it leads the raster rows of step 1 by a point at 8192^3 in %
#      of cuBLAS.
#   4. 2048^3 in 128 x 128 cooperative tiles (256 tiles: a block's second tile's loads under
#      its first's epilogue) and the two-buffer store (4 stages; 97.8% in the last pass).
#   5. fp8 block scales at 4096x7168x16384, the library's call (now 128 x 128 2x1) beside
#      cuBLASLt unscaled (no torch): 1,142.5 TFLOP/s for that tile in the last pass.
# First hopper_auto_test (the rows) and hopper_test on the GPU.  Built beforehand (`make all
# tests`; the make below is then a no-op); every command under a timeout, the whole under
# 150 s on an H200.  Log: $OUT/hop19.log (default build/device-out); the SM clock and power
# every 200 ms in $OUT/clocks.csv, each bench row stamped with the time it ended.
#   ITERS=10 sh scripts/device-hop19.sh
. scripts/device-common.sh
log="$out/hop19.log"
start=$(date +%s)
budget=${BUDGET_S:-118} # (no step starts later: the last may take 22 s more)
stamp() { while IFS= read -r l; do echo "$(date -u +%T.%N | cut -c1-12) $l"; done; }
quiet() { grep -v "^[0-9:.]* # \(check\|time\|index\|  (allowed\|cuBLAS:\|bf16 ->\)"; }
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; budget=-1; fi
    timeout 60 make -j16 build/cutec build/tests/kernels/gemm/hopper_test build/tests/kernels/gemm/hopper_auto_test 2>&1 |
        grep -E "error|warning" | head -20
    # (the interpreter's cases run in CI: the GPU's alone)
    CUTEC_TEST_GPU_ONLY=1 TEST_TIMEOUT=20 device_tests kernels/gemm/hopper_auto_test kernels/gemm/hopper_test
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 200 >"$out/clocks.csv" 2>&1 &
    smi=$!
    echo "== 1. the squares: coop / pp, 1x1 / 2x1, the whole tile"
    device_late squares || device_bench_bf16 45 8192,4096,2048 --schedule coop,pingpong --cluster 1x1,2x1 --store tile |
        stamp | quiet
    echo "== 2. K 512 and 256: pp (the library's) / coop, 128 x 128 / 128 x 256"
    device_late K512 || device_bench_bf16 30 8192x8192x512,8192x8192x256 --schedule pingpong,coop \
        --tile 128x128x64,128x256x64 --store tile | stamp | quiet
    echo "== 3. the snake order (its own process)"
    device_late snake || CUTEC_GEMM_HOPPER_ORDER=snake device_bench_bf16 30 8192,4096 --cluster 1x1,2x1 --store tile |
        stamp | quiet
    echo "== 4. 2048^3: 128 x 128 coop tiles, the two-buffer store"
    device_late 2048 || device_bench_bf16 14 2048 --tile 128x256x64,128x128x64 --store tile,tma | stamp | quiet
    kill "$smi" 2>/dev/null
    echo "== 5. fp8 block scales, the library's tile (no torch)"
    device_late fp8 || (CUTEC_TORCH_SCALED_MM=/dev/null && export CUTEC_TORCH_SCALED_MM &&
        fp8_bench 22 --scale block --sizes 4096x7168x16384 | stamp | quiet)
    device_end
} >"$log" 2>&1
cat "$log"
