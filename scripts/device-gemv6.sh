#!/bin/sh
# The GEMV pass of branch gemv6 on a GPU machine (issue 17), under 150 s on an H200.  The new
# form: each warp's k-tiles through a ring of shared memory of its own by cp.async, stages - 1
# ahead of its products (NVFP4's default; bf16 with --smem-stages N), checked on the GPU
# against float64 at odd sizes; then `cutec bench gemv`, each row beside a device copy of the
# same bytes in the same process: NVFP4 on seed 001's three (M,K,L) through the ring of 4
# stages (the default), session 29's register forms (--smem-stages 0: the library's old
# choice) and rings of 2 and 3; the bf16 GEMV through registers (its default) and rings of 4
# and 3, torch.mv; the Hopper few-row route (M = 64, 128) against cuBLAS; ptxas's registers;
# last, if under 95 s, an Nsight Compute profile of the ring at (7168,16384,1).  Results in
# $OUT (default build/device-out); the log's tail is printed.  Past BUDGET_S (115) the
# remaining steps print "skipped".
. scripts/device-common.sh
log="$out/gemv6.log"
start=$(date +%s) budget=${BUDGET_S:-115} GEMV_TIMEOUT=30
R="stdbuf -oL -eL"
{
    device_begin
    echo "== NVFP4 on the GPU at odd sizes (checked against float64): the ring, then the register forms"
    device_gemv_run --dtype nvfp4 --shape 261x4160 --batch 2
    device_gemv_run --dtype nvfp4 --shape 7168x5120
    device_gemv_run --dtype nvfp4 --shape 37x9216 --batch 3 --smem-stages 2
    device_gemv_run --dtype nvfp4 --shape 4096x4160 --batch 3 --smem-stages 3
    device_gemv_run --dtype nvfp4 --shape 261x4160 --batch 2 --smem-stages 0
    device_gemv_run --dtype bf16 --shape 4099x8192 --batch 2 --smem-stages 4
    device_gemv_run --dtype bf16 --shape 1000x3000 --smem-stages 2
    echo "== bench gemv nvfp4: the ring of 4 stages (the default); seed 001's (M,K,L), GB/s of what it must read"
    device_gemv --dtype nvfp4
    echo "== bench gemv nvfp4: session 29's choice (--smem-stages 0: registers at (4096,7168,8), a k-tile at a time else)"
    device_gemv --dtype nvfp4 --smem-stages 0
    echo "== bench gemv nvfp4: rings of 2 and 3 stages"
    device_gemv --dtype nvfp4 --smem-stages 2
    device_gemv --dtype nvfp4 --smem-stages 3
    echo "== bench gemv bf16 (beside the copy): the library's (registers), then rings of 4 and 3 stages; torch.mv"
    device_gemv --dtype bf16
    device_gemv --dtype bf16 --smem-stages 4
    device_gemv --dtype bf16 --smem-stages 3
    device_late torch || $R timeout 25 python3 bench/torch_gemv.py mv-bf16 2>&1
    echo "== the Hopper few-row route (cutec_gemm AUTO, M = 64 and 128, N = K = 8192) against cuBLAS"
    device_late hopper || $R timeout 30 build/cutec bench gemm --dtype bf16 --layout tn --variants hopper \
        --sizes 64x8192x8192,128x8192x8192 --iters 20 2>&1 | grep -E "^(64|128) "
    device_late usage || device_gemv_usage "nvfp4" "nvfp4 --smem-stages 0" "nvfp4 --smem-stages 3" "bf16" \
        "bf16 --smem-stages 4"
    if [ $(($(date +%s) - start)) -lt 95 ]; then
        command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
        echo "== ncu: the ring at (7168,16384,1)"
        timeout 25 ncu --clock-control none --kernel-name-base function --kernel-name 'regex:_kernel_[0-9]+$' \
            --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
            --section SchedulerStats --section Occupancy -f -o "$out/ring" \
            build/cutec bench gemv --dtype nvfp4 --shape 7168x16384 --iters 3 >"$out/ring-bench.txt" 2>&1
        timeout 10 ncu --import "$out/ring.ncu-rep" --print-summary none >"$out/ring.txt" 2>&1
        grep -E "Duration|Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Stall|Warp Cycles" \
            "$out/ring.txt" | head -30
        rm -f "$out/ring.ncu-rep"
    fi
    device_end
} >"$log" 2>&1
tail -n 100 "$log"
