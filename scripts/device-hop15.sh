#!/bin/sh
# The Hopper bf16 GEMM against cuBLAS (issue 15, engineer hop15): which schedule, cluster and
# tile the library should run.  First hopper_test on the GPU (its ping-pong and cluster cases
# among them, every result against float64); then the wgmma ceiling with two warpgroups an SM
# and with one (a single accumulator chain: what a ping-pong warpgroup's turn gets); then
# `cutec bench gemm --dtype bf16 --layout tn --variants hopper` at the issue's shapes, cuBLAS
# once per shape in the same process on the same gaussian inputs and each candidate a row
# beside it (sampled against float64 and compared with cuBLAS's every element):
#   hopper1x1-coop   the library's default: cooperative, 128 x 256 a block
#   hopper2x1-coop   the same with TMA multicast of B to the 2 blocks along M
#   hopper1x1-pp     ping-pong, 128 x 128 a warpgroup (87-90% of cuBLAS in pass 27, before
#                    the tile coordinates left the producer's k-tile loop)
#   hopper2x1-pp     ping-pong with B multicast (its L2 traffic a k-tile down to the
#                    cooperative kernel's)
# and at 4096^3 and 8192x8192x1024: ping-pong with A multicast (1x2) and ping-pong 64 x 256
# a warpgroup, 1x2 and 2x1; at 8192x8192x1024 ping-pong in 6 stages
# (C then stored from the accumulators: no room for its TMA buffers; 5 stages beside them).
# Built beforehand (`make all tests`); every command under a timeout, the whole under 150 s
# on an H200.  Log: $OUT/hop15.log (default build/device-out).
#   SHAPES=2048,4096 MORE_SHAPES=8192 ITERS=5 sh scripts/device-hop15.sh
. scripts/device-common.sh
shapes=${SHAPES:-2048,4096,8192,8192x8192x1024,8192x28672x4096,8192x4096x14336,8192x6144x4096}
more=${MORE_SHAPES:-4096,8192x8192x1024}
log="$out/hop15.log"
start=$(date +%s)
bench() # seconds, sizes, options...
{
    lim=$1 s=$2
    shift 2
    echo "-- at $(el) s: --sizes $s $*"
    # shellcheck disable=SC2068
    timeout "$lim" build/cutec bench gemm --dtype bf16 --layout tn --sizes "$s" --variants hopper --iters "$iters" $@ 2>&1 |
        grep -E "^[0-9#]" | grep -v "^# \(index\|time\|check\|cuBLAS:\)"
}
{
    device_head
    make -j16 build/cutec build/tests/kernels/gemm/hopper_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=40 device_tests kernels/gemm/hopper_test
    echo "== wgmma ceiling at $(el) s: two warpgroups an SM, then one"
    timeout 8 build/cutec bench mma --dtypes "wgmma bf16" --iters 5 2>&1 | grep -E "^wgmma|^#.*SM clock"
    timeout 8 build/cutec bench mma --dtypes "wgmma bf16" --iters 5 --warpgroups 1 2>&1 | grep -E "^wgmma|^#.*SM clock"
    echo "== bf16 tn: cooperative 128x256 and ping-pong 128x128, 1x1 and 2x1 clusters"
    bench 65 "$shapes" --schedule coop,pingpong --cluster 1x1,2x1
    echo "== ping-pong: A multicast (1x2); 64 x 256 a warpgroup"
    bench 18 "$more" --schedule pingpong --cluster 1x2,2x1 --tile 128x128x64,64x256x64
    echo "== ping-pong in 6 stages"
    bench 10 8192x8192x1024 --schedule pingpong --cluster 1x1,2x1 --stages 6
    echo "== clocks after, at $(el) s"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
