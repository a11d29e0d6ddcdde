#!/bin/sh
# The Hopper bf16 GEMM against cuBLAS (issue 15 item 1, engineer hop18): the forms the
# library's table by shape (hopper_auto.c) chooses between, its choice among them (2x1 clusters
# and the whole tile's store where M and N are each 4096 or more and M N at least 8192 x 4096
# with K past 1024; 1x1 and the whole tile below; ping-pong at K <= 1024), cuBLAS in the same
# process on the same gaussian inputs (every bench row sampled against float64 and compared
# with cuBLAS's elements):
#   -tile  every piece of C's tile its own buffer (64 KB), one group of stores a tile, 3 stages
#   -tma   two buffers a warpgroup (32 KB), two groups of stores a tile (one wait for a store's
#          read a tile, where piece by piece had three), 4 stages
#   1x1 / 2x1  no cluster / clusters of 2 along M (B's k-tiles multicast)
#   pingpong / coop at K = 1024
# First hopper_test and hopper_auto_test on the GPU (every result against float64; --store tma
# and tile, clusters among the cases); then the rows, the shapes most wanted first.
# PART=tp (two GPUs, LANE_GPUS): issue 20's tensor-parallel bench instead (device-tp3.sh).
# Built beforehand (`make all tests`); every command under a timeout, the whole under 150 s on
# an H200.  Log: $OUT/hop18.log (default build/device-out).
#   ITERS=5 sh scripts/device-hop18.sh
if [ "${PART:-}" = tp ]; then
    exec sh scripts/device-tp3.sh
fi
. scripts/device-common.sh
log="$out/hop18.log"
start=$(date +%s)
budget=${BUDGET_S:-150}
{
    device_head
    make -j16 build/cutec build/tests/kernels/gemm/hopper_test build/tests/kernels/gemm/hopper_auto_test 2>&1 |
        grep -E "error|warning" | head -20
    # (the interpreter's cases run in CI)
    export CUTEC_TEST_GPU_ONLY=1 TEST_TIMEOUT=30
    device_tests kernels/gemm/hopper_test kernels/gemm/hopper_auto_test
    unset CUTEC_TEST_GPU_ONLY
    # the SM clock and power every 200 ms while the benches run ($out/clocks.csv), each bench
    # row stamped with the time it ended: is a row at the power cap, and at what clock
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 200 >"$out/clocks.csv" 2>&1 &
    smi=$!
    # (no row of the library's own choice: it is one of the rows below -- 2x1 tile at 8192^3 and
    # the LLM shapes, 1x1 tile at 4096^3 and 2048^3, ping-pong 1x1 at K = 1024, as
    # hopper_auto_test checks -- and every shape costs 10-20 s of inputs and checks)
    echo "== bf16 tn, the squares: 1x1 / 2x1 clusters, the whole tile's store / two buffers' groups"
    device_bench_bf16 50 8192,4096,2048 --cluster 1x1,2x1 --store tile,tma | stamp
    echo "== K = 1024: ping-pong (the library's) / cooperative"
    device_late K1024 || device_bench_bf16 20 8192x8192x1024 --schedule pingpong,coop --cluster 1x1,2x1 --store tile | stamp
    echo "== the LLM shapes (8192x28672x4096 last: its inputs take the longest)"
    device_late LLM || device_bench_bf16 40 8192x4096x14336,8192x6144x4096,8192x28672x4096 --cluster 1x1,2x1 --store tile | stamp
    kill "$smi" 2>/dev/null
    device_end
} >"$log" 2>&1
cat "$log"
