#!/bin/sh
# The Hopper GEMM's TMA-store epilogue and fused epilogues on a GPU (issue 15 items 1, 2, 7;
# engineer hopepi), under 4 minutes: build the library, the CLI and hopper_test; hopper_test
# on the GPU; odd sizes through `cutec run gemm` (every element against float64); then, in
# one process per line on the same gaussian inputs with cuBLAS beside, the previous epilogue
# (--store st) against the TMA store, and the plain kernel against each fused epilogue, bf16
# tn at 8192^3, and the dual GEMM with SwiGLU against two cuBLAS calls + silu(x) * y.  Logs
# go to $OUT (default build/device-out).
#   ITERS=10 SIZES=8192 sh scripts/device-hopepi.sh
. scripts/device-common.sh
sizes=${SIZES:-8192}
log="$out/hopepi.log"
bench() { timeout 60 build/cutec bench gemm --dtype bf16 --sizes "$sizes" --variants hopper --iters "$iters" "$@" 2>&1 | grep -E "^[0-9]|^#  *SM"; }
{
    device_head
    make -j16 all build/tests/kernels/gemm/hopper_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=100 device_tests kernels/gemm/hopper_test
    echo "== run gemm --variant hopper bf16 1024x1000x264: every element against float64"
    for e in "--store st" "--store tma" "--epilogue gelu_tanh --bias row" "--epilogue silu --bias col --beta 1" "--epilogue swiglu"; do
        for l in tn tnt; do
            # shellcheck disable=SC2086
            echo "$l $e: $(timeout 30 build/cutec run gemm --variant hopper --dtype bf16 --layout $l --m 1024 --n 1000 --k 264 $e 2>&1 | tail -n 2 | tr '\n' ' ')"
        done
    done
    echo "== bench bf16 tn: the 16-byte-store epilogue (--store st), then the TMA store"
    bench --layout tn --store st
    bench --layout tn --store tma
    echo "== bench bf16 tn: plain, then fused (lines: cuBLAS, hopper, hopper+epilogue)"
    for e in "--epilogue bias" "--epilogue relu --bias col" "--epilogue gelu --bias col" "--epilogue gelu_tanh --bias col" "--epilogue silu"; do
        echo "-- $e"
        # shellcheck disable=SC2086
        bench --layout tn $e
    done
    echo "== bench bf16 tn: the dual GEMM with SwiGLU against two cuBLAS calls and cutec's silu(x) * y"
    bench --layout tn --epilogue swiglu
    echo "== registers and spills (TMA store; gelu_tanh with a column bias; the dual GEMM)"
    for e in "--store tma" "--epilogue gelu_tanh --bias col" "--epilogue swiglu"; do
        # shellcheck disable=SC2086
        build/cutec compile gemm --dtype bf16 --variant hopper --layout tn --arch sm_90a $e --emit usage 2>&1 | grep -E "registers|spill"
    done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
