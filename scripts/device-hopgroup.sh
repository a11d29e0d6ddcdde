#!/bin/sh
# The grouped GEMM pass (issue 15 item 4, issue 14's tensormap.replace): build, the grouped
# kernel's and the TMA rows' tests on the GPU (and wgmma_test: the fp8 wgmma's modelled sum
# against fresh hardware results), `cutec run gemm --groups` at odd sizes (every
# element of every group against float64), then the MoE shapes (experts of varied token
# counts, N = K = 4096) against a loop of cuBLAS calls over the same groups in one process.
# Logs go to $OUT (default build/device-out) and $OUT/hopgroup.tgz.
#   ITERS=10 sh scripts/device-hopgroup.sh
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-hopgroup: skipped: no GPU here"; exit 0; }
log="$out/hopgroup.log"
{
    device_begin
    device_tests kernels/gemm/grouped_test interp/tma_test atom/wgmma_test interp/wgmma_fp8_test
    echo "== run gemm --groups: odd sizes, every element of every group against float64"
    build/cutec run gemm --groups 7 --m 300 --n 520 --k 264 --dtype bf16 2>&1 | tail -n 3
    build/cutec run gemm --groups 5 --m 200 --n 512 --k 272 --dtype e4m3 --out-dtype bf16 2>&1 | tail -n 3
    build/cutec run gemm --groups 4 --m 100 --n 256 --k 128 --dtype f16 --out-dtype f32 2>&1 | tail -n 3
    echo "== bench gemm --groups (MoE: N = K = 4096): the grouped kernel against a loop of cuBLAS calls"
    build/cutec bench gemm --groups 8 --tokens 512 --sizes 4096 --dtype bf16 --iters $iters 2>&1 | tail -n 2
    build/cutec bench gemm --groups 32 --tokens 128 --sizes 4096 --dtype bf16 --iters $iters 2>&1 | tail -n 2
    build/cutec bench gemm --groups 16 --tokens 2048 --sizes 4096 --dtype bf16 --iters $iters 2>&1 | tail -n 2
    build/cutec bench gemm --groups 8 --tokens 1024 --sizes 4096 --dtype e4m3 --out-dtype bf16 --iters $iters 2>&1 | tail -n 2
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tar czf "$out/hopgroup.tgz" -C "$out" $(cd "$out" && ls *.log) 2>/dev/null
tail -n 60 "$log"
