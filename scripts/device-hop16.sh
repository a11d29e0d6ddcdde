#!/bin/sh
# The Hopper bf16 GEMM's epilogue against cuBLAS (issue 15, engineer hop16): the TMA-store
# epilogue piece by piece (`--store tma`: two 8 KB buffers a warpgroup, a wait for the store
# two pieces back and two barriers a piece, 4 stages) against the whole tile written first
# (`--store tile`: a buffer a piece, one barrier, the stores waited for a main loop later, 3
# stages).  First hopper_test on the GPU (--store tile among its cases, every result against
# float64) and hopper_auto_test; then `cutec bench gemm --dtype bf16 --layout tn --variants
# hopper`, cuBLAS once per shape in the same process on the same gaussian inputs, each
# candidate a row beside it (sampled against float64 and compared with cuBLAS's elements):
#   hopper-tma    the cooperative kernel as before
#   hopper-tile   the same with the whole-tile epilogue (the library's choice at K > 1024)
# (session 28's mid pass: the benchmarks ran about 5 s a row on a host of four lanes, so only
# these two commands, the most wanted rows first)
# Built beforehand (`make all tests`); every command under a timeout, the whole under 150 s
# on an H200.  Log: $OUT/hop16.log (default build/device-out).
#   ITERS=5 sh scripts/device-hop16.sh
. scripts/device-common.sh
log="$out/hop16.log"
start=$(date +%s)
{
    device_head
    make -j16 build/cutec build/tests/kernels/gemm/hopper_test build/tests/kernels/gemm/hopper_auto_test 2>&1 |
        grep -E "error|warning" | head -20
    # (the interpreter's cases of hopper_test ran past 40 s on a loaded host: CI runs them)
    export CUTEC_TEST_GPU_ONLY=1 TEST_TIMEOUT=45
    device_tests kernels/gemm/hopper_test kernels/gemm/hopper_auto_test
    unset CUTEC_TEST_GPU_ONLY
    echo "== bf16 tn: TMA stores piece by piece (tma) against the whole tile (tile, the library's at K > 1024)"
    device_bench_bf16 60 8192,8192x8192x1024,4096,2048 --store tma,tile
    echo "== the LLM shapes"
    device_bench_bf16 40 8192x4096x14336,8192x6144x4096,8192x28672x4096 --store tma,tile
    echo "== clocks after, at $(($(date +%s) - start)) s"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
