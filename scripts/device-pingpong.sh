#!/bin/sh
# The Hopper GEMM's ping-pong schedule against the cooperative one (issue 15 items 1-3,
# engineer pingpong): build, hopper_test (ping-pong cases among its own, every result
# against float64) and epilogue_test on the GPU, then `cutec bench gemm --variants hopper`
# beside cuBLAS in one process on the same gaussian inputs: bf16 tn at 2048^3, 4096^3,
# 8192^3 and the LLM shapes, a row per schedule (hopper-coop: 128 x 256 a block; hopper-pp:
# 128 x 128 a warpgroup); at 8192^3 ping-pong's 64 x 256 and, there and at 8192x8192x1024,
# the cooperative kernel's 128 x 192 (its last wave fuller); the fused GELU epilogues' cost
# at 8192^3 (erf, tanh); registers and spills.  Logs go to $OUT
# (default build/device-out); under 4 minutes on an H100/H200.
#   SHAPES=2048,4096 SCHEDULES=coop,pingpong PP_TILES=64x256x64 TILES=128x192x64 sh scripts/device-pingpong.sh
. scripts/device-common.sh
shapes=${SHAPES:-2048,4096,8192,8192x8192x1024,8192x28672x4096,8192x4096x14336,8192x6144x4096}
log="$out/pingpong.log"
bench() # sizes, extra options
{
    s=$1
    shift
    # shellcheck disable=SC2068
    timeout 120 build/cutec bench gemm --dtype bf16 --layout tn --sizes "$s" --variants hopper --iters "$iters" $@ 2>&1 |
        grep -E "^[0-9#]" | grep -v "^# \(index\|time\|check\|cuBLAS:\)"
}
{
    device_head
    echo "== build"
    make -j16 build/cutec build/tests/kernels/gemm/hopper_test build/tests/kernels/gemm/epilogue_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=100 device_tests kernels/gemm/hopper_test kernels/gemm/epilogue_test
    echo "== bench bf16 tn, schedules ${SCHEDULES:-coop,pingpong} (ping-pong: 128 x 128 a warpgroup)"
    bench "$shapes" --schedule "${SCHEDULES:-coop,pingpong}"
    echo "== bench bf16 tn, ping-pong ${PP_TILES:-64x256x64}; the cooperative kernel's ${TILES:-128x192x64} (wave quantization)"
    bench 8192 --schedule pingpong --tile "${PP_TILES:-64x256x64}"
    bench 8192,8192x8192x1024 --schedule coop --tile "${TILES:-128x192x64}"
    echo "== bench bf16 tn 8192^3: GELU (erf, then tanh) with a column bias, cost against the plain kernel"
    bench 8192 --epilogue gelu --bias col
    bench 8192 --epilogue gelu_tanh --bias col
    echo "== registers and spills"
    for o in "--schedule coop" "--schedule pingpong" "--schedule pingpong --tile 64x256x64" "--epilogue gelu --bias col"; do
        # shellcheck disable=SC2086
        echo "$o: $(build/cutec compile gemm --dtype bf16 --variant hopper --layout tn --arch sm_90a $o --emit usage 2>&1 | grep -E "registers|spill|C7520" | tr '\n' ' ')"
    done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
