#!/bin/sh
# The Hopper bf16 GEMM's epilogue against cuBLAS (issue 15, engineer hop16): the TMA-store
# epilogue piece by piece (`--store tma`: two 8 KB buffers a warpgroup, a wait for the store
# two pieces back and two barriers a piece, 4 stages) against the whole tile written first
# (`--store tile`: a buffer a piece, one barrier, the stores waited for a main loop later, 3
# stages).  First hopper_test on the GPU (--store tile among its cases, every result against
# float64) and hopper_auto_test; then `cutec bench gemm --dtype bf16 --layout tn --variants
# hopper`, cuBLAS once per shape in the same process on the same gaussian inputs, each
# candidate a row beside it (sampled against float64 and compared with cuBLAS's elements):
#   hopper-tma    the cooperative kernel as before (the library's default but for K <= 1024)
#   hopper-tile   the same with the whole-tile epilogue
#   hopper-coop-*, hopper-pp-*   at 8192x8192x1024, the cooperative kernel and ping-pong 128 x
#                 128 a warpgroup (the library's choice at K <= 1024), each both ways
#   hopper2x1-tile, hopper-t128x192x64-tile   the whole tile in 2x1 clusters, in 128 x 192 tiles
# Built beforehand (`make all tests`); every command under a timeout, the whole under 150 s
# on an H200.  Log: $OUT/hop16.log (default build/device-out).
#   LLM=8192x6144x4096 ITERS=5 sh scripts/device-hop16.sh
. scripts/device-common.sh
llm=${LLM:-8192x28672x4096,8192x4096x14336,8192x6144x4096}
log="$out/hop16.log"
start=$(date +%s)
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 build/cutec build/tests/kernels/gemm/hopper_test build/tests/kernels/gemm/hopper_auto_test 2>&1 |
        grep -E "error|warning" | head -20
    # (the interpreter's cases of hopper_test ran past 40 s on a loaded host: CI runs them)
    export CUTEC_TEST_GPU_ONLY=1 TEST_TIMEOUT=45
    device_tests kernels/gemm/hopper_test kernels/gemm/hopper_auto_test
    unset CUTEC_TEST_GPU_ONLY
    echo "== bf16 tn: TMA stores piece by piece (tma) against the whole tile (tile)"
    device_bench_bf16 24 4096,8192,2048 --store tma,tile
    echo "== short K: the same, and ping-pong (the library's choice at K <= 1024)"
    device_bench_bf16 14 8192x8192x1024 --schedule coop,pingpong --store tma,tile
    echo "== the LLM shapes"
    device_bench_bf16 33 "$llm" --store tma,tile
    echo "== the whole tile in 2x1 clusters (B multicast); 128 x 192 tiles (20.9 waves at 8192^3, not 15.5)"
    device_bench_bf16 11 4096,8192 --cluster 2x1 --store tile
    device_bench_bf16 10 8192,8192x28672x4096 --tile 128x192x64 --store tile
    echo "== clocks after, at $(($(date +%s) - start)) s"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
