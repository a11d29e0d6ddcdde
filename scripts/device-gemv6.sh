#!/bin/sh
# The GEMV pass of branch gemv6 on a GPU machine (issue 17), under 150 s on an H200.  The ring
# (each warp's k-tiles through shared memory of its own by cp.async, stages - 1 ahead of its
# products; opt-in: --smem-stages N) measured 15 points of the copy slower than the register
# forms for NVFP4 in the mid pass of session 30, whatever its depth: this pass checks it on
# the GPU against float64, measures the bf16 GEMV through it (not measured yet) beside the
# register form and NVFP4 through registers (the library's default), each row beside a
# device copy of the same bytes in the same process, then profiles the NVFP4 ring at
# (7168,16384,1) with Nsight Compute (stalls by SASS instruction: what it costs), and last, if
# time is left, torch.mv and ptxas's registers.  Results in $OUT (default build/device-out);
# the log's tail is printed.  Past BUDGET_S (120) the remaining steps print "skipped".
. scripts/device-common.sh
log="$out/gemv6.log"
start=$(date +%s) budget=${BUDGET_S:-120} GEMV_TIMEOUT=25
R="stdbuf -oL -eL"
prof_ring()
{
    command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
    command -v ncu >/dev/null || { echo "no ncu"; return; }
    timeout 35 ncu --clock-control none --kernel-name-base function --kernel-name 'regex:_kernel_[0-9]+$' \
        --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --section MemoryWorkloadAnalysis --section SourceCounters -f -o "$out/ring" \
        build/cutec bench gemv --dtype nvfp4 --shape 7168x16384 --smem-stages 4 --iters 3 >"$out/ring.txt" 2>&1
    timeout 10 ncu --import "$out/ring.ncu-rep" --print-summary none >>"$out/ring.txt" 2>&1
    timeout 10 ncu --import "$out/ring.ncu-rep" --page source --csv --print-source sass >"$out/ring-sass.csv" 2>&1
    grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Registers Per" \
        "$out/ring.txt" | head -12
    [ -f scripts/ncu_top.py ] && timeout 10 python3 scripts/ncu_top.py "$out/ring-sass.csv" 25 2>&1 | head -30
    rm -f "$out/ring.ncu-rep"
}
{
    device_begin
    echo "== on the GPU at odd sizes (checked against float64): the ring, and NVFP4's default"
    device_gemv_run --dtype nvfp4 --shape 261x4160 --batch 2 --smem-stages 4
    device_gemv_run --dtype bf16 --shape 4099x8192 --batch 2 --smem-stages 4
    echo "== bench gemv bf16 (beside the copy): the library's (registers), then the ring of 4 stages"
    device_gemv --dtype bf16
    device_gemv --dtype bf16 --smem-stages 4 | tail -n 3
    echo "== bench gemv nvfp4: the library's (registers at (4096,7168,8), a k-tile at a time else)"
    device_gemv --dtype nvfp4
    echo "== ncu: the NVFP4 ring of 4 at (7168,16384,1) (where under 85 s)"
    if [ $(($(date +%s) - start)) -lt 85 ]; then prof_ring; else echo "-- skipped (time)"; fi
    echo "== torch.mv bf16"
    device_late torch || $R timeout 20 python3 bench/torch_gemv.py mv-bf16 2>&1
    device_late usage || device_gemv_usage "nvfp4 --smem-stages 4" "bf16" "bf16 --smem-stages 4"
    device_end
} >"$log" 2>&1
tail -n 100 "$log"
