#!/bin/sh
# The Hopper GEMM's TMA-store epilogue and fused epilogues on a GPU (issue 15 items 1, 2, 7;
# engineer hopepi): build, hopper_test and pipeline_test on the GPU, odd sizes of each
# epilogue through `cutec run gemm` (every element against float64), then in one process
# per line, on the same gaussian inputs with cuBLAS beside: the previous epilogue (--store
# st) against the TMA store, and the plain kernel against each fused epilogue at 8192^3 bf16.
# Logs go to $OUT (default build/device-out).
#   ITERS=10 sh scripts/device-hopepi.sh
. scripts/device-common.sh
log="$out/hopepi.log"
{
    device_begin
    device_tests kernels/gemm/hopper_test kernels/pipeline_test
    echo "== run gemm --variant hopper: odd sizes, every element against float64"
    for e in "--store st" "--store tma" "--epilogue gelu_tanh --bias row" "--epilogue silu --bias col --beta 1"; do
        for l in tn tnt; do
            # shellcheck disable=SC2086
            echo "$l $e: $(build/cutec run gemm --variant hopper --dtype bf16 --layout $l --m 1024 --n 1000 --k 264 $e 2>&1 | tail -n 2 | tr "\n" " ")"
        done
    done
    echo "== bench gemm bf16 tn: the 16-byte-store epilogue (--store st) against the TMA store"
    build/cutec bench gemm --dtype bf16 --layout tn --sizes 4096,8192 --variants hopper --store st --iters $iters 2>&1 | grep -E "^[0-9]"
    build/cutec bench gemm --dtype bf16 --layout tn --sizes 4096,8192 --variants hopper --iters $iters 2>&1 | grep -E "^[0-9]"
    build/cutec bench gemm --dtype bf16 --layout tnt --sizes 8192 --variants hopper --store st --iters $iters 2>&1 | grep -E "^[0-9]"
    build/cutec bench gemm --dtype bf16 --layout tnt --sizes 8192 --variants hopper --iters $iters 2>&1 | grep -E "^[0-9]"
    echo "== bench gemm bf16 tn 8192: plain, then fused (each line: cuBLAS, hopper, hopper+epilogue)"
    for e in "--epilogue bias" "--epilogue relu --bias col" "--epilogue gelu --bias col" "--epilogue gelu_tanh --bias col" "--epilogue silu"; do
        echo "-- $e"
        # shellcheck disable=SC2086
        build/cutec bench gemm --dtype bf16 --layout tn --sizes 8192 --variants hopper $e --iters $iters 2>&1 | grep -E "^[0-9]"
    done
    echo "== registers, spills and SASS of the Hopper kernel (TMA store; gelu_tanh with a column bias)"
    for e in "--store tma" "--epilogue gelu_tanh --bias col"; do
        # shellcheck disable=SC2086
        build/cutec compile gemm --dtype bf16 --variant hopper --layout tn --arch sm_90a $e --emit usage 2>&1 | grep -E "registers|spill"
    done
    build/cutec compile gemm --dtype bf16 --variant hopper --layout tn --arch sm_90a --emit sass 2>/dev/null |
        grep -oE "(HGMMA|UTMALDG|UTMASTG|STSM|SYNCS|STG|BAR)[.A-Z0-9_x]*" | sort | uniq -c
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
