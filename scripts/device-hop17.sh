#!/bin/sh
# Stream-K in the Hopper bf16 GEMM against cuBLAS (issue 15, engineer hop17): the cooperative
# kernel with whole-tile TMA stores (hopper-coop-tile: the library's choice at K > 1024 before
# stream-K) against the same kernel with the last partial wave and the full wave before it
# split into equal runs of k-tiles, a block each, partials added through a workspace
# (hopper-sk-tile, `--schedule streamk`).  First streamk_test on the GPU (every result against
# float64: 4096^3, 2048^3, odd sizes, f32 C, a fused epilogue) and hopper_auto_test; then
# `cutec bench gemm --dtype bf16 --layout tn --variants hopper`, cuBLAS once per shape in the
# same process on the same gaussian inputs (each row sampled against float64 and compared
# with cuBLAS's elements).  Waves of 128 x 256 tiles on 132 SMs: 4096^3 3.88, 8192^3 15.5,
# 2048^3 0.97 (where runs would save nothing: stream-K keeps whole tiles, so sk = coop),
# 8192x4096x14336 7.76, 8192x6144x4096 11.6, 8192x28672x4096 54.3.
# Built beforehand (`make all tests`); every command under a timeout, the whole under 150 s on
# an H200.  Log: $OUT/hop17.log (default build/device-out).
#   ITERS=5 sh scripts/device-hop17.sh
. scripts/device-common.sh
log="$out/hop17.log"
start=$(date +%s)
{
    device_head
    make -j16 build/cutec build/tests/kernels/gemm/streamk_test build/tests/kernels/gemm/hopper_auto_test 2>&1 |
        grep -E "error|warning" | head -20
    # (the interpreter's cases run in CI)
    export CUTEC_TEST_GPU_ONLY=1 TEST_TIMEOUT=40
    device_tests kernels/gemm/streamk_test kernels/gemm/hopper_auto_test
    unset CUTEC_TEST_GPU_ONLY
    echo "== bf16 tn, whole-tile stores: cooperative (coop) against stream-K (sk)"
    device_bench_bf16 50 4096,8192,2048 --schedule coop,streamk --store tile
    echo "== the LLM shapes"
    device_bench_bf16 60 8192x4096x14336,8192x6144x4096,8192x28672x4096 --schedule coop,streamk --store tile
    echo "== clocks after, at $(($(date +%s) - start)) s"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
