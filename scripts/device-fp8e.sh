#!/bin/sh
# fp8 block scales: wider tiles and the promotion between the next batch's wgmmas (issue 15
# item 5; engineer fp8e), under 150 s on an H200 after `make all tests` (the make below is
# then a no-op):
#   1. scaled_test on the GPU (the interpreter's cases, then per-tensor and block scales
#      against float64: the library's loop, load, staged, interleave; 128x160, 128x192, 256x128);
#   2. block scales (1x128 A, 128x128 B) e4m3 -> bf16 at 4096x7168x16384, 1x1, tiles 128x128
#      (the library's: "old"), 128x160 and 128x176 (new: parts of 32 / 16 columns), 128x192, with
#      cuBLASLt (unscaled) and torch's block-scaled _scaled_mm in the same run (target 1,450);
#   3. the same shape, --scale-mul interleave (128x128: kt's promotion in four parts between
#      kt + 1's wgmmas), then 128x160 in 2x1 clusters;
#   4. per-tensor scales at that shape in 128x128, 128x160, 128x256 (the ceilings; no torch);
#   5. registers and spills (sm_90a) of the block-scaled kernels;
#   6. if the time allows, ncu on the 128x160 block-scaled kernel (stalls a SASS instruction).
# Every command has a timeout and runs line-buffered; the log is $OUT/fp8e.log (default
# build/device-out).   ITERS=10 sh scripts/device-fp8e.sh
. scripts/device-common.sh
log="$out/fp8e.log"
start=$(date +%s)
el() { echo $(($(date +%s) - start)); }
no_torch() { CUTEC_TORCH_SCALED_MM=/dev/null && export CUTEC_TORCH_SCALED_MM; } # (in a subshell: torch's row skipped)
blk=4096x7168x16384
prof_160()
{
    command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
    command -v ncu >/dev/null || { echo "no ncu"; return; }
    (no_torch && timeout 40 ncu --clock-control none --kernel-name-base function --kernel-name 'regex:_kernel_[0-9]+$' \
        --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --section SourceCounters -f -o "$out/fp8e-160" build/cutec bench gemm --dtype e4m3 --out-dtype bf16 \
        --layout tn --variants hopper --scale block --sizes $blk --tile 128x160x128 --iters 3 >"$out/fp8e-160.txt" 2>&1)
    timeout 15 ncu --import "$out/fp8e-160.ncu-rep" --print-summary none >>"$out/fp8e-160.txt" 2>&1
    timeout 15 ncu --import "$out/fp8e-160.ncu-rep" --page source --csv --print-source sass >"$out/fp8e-160-sass.csv" 2>&1
    grep -E "Duration|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" "$out/fp8e-160.txt" | head -8
    [ -f scripts/ncu_top.py ] && timeout 10 python3 scripts/ncu_top.py "$out/fp8e-160-sass.csv" 20 2>&1 | head -30
    rm -f "$out/fp8e-160.ncu-rep"
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    timeout 10 make -j16 build/cutec build/tests/kernels/gemm/scaled_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=40 device_tests kernels/gemm/scaled_test
    echo "== $(el) s: block scales, $blk, 1x1, tiles 128x128 (old), 128x160, 128x176, 128x192; cuBLASLt, torch"
    fp8_bench 38 --scale block --sizes $blk --cluster 1x1 --tile 128x128x128,128x160x128,128x176x128,128x192x128
    echo "== $(el) s: block scales, $blk, --scale-mul interleave 128x128 1x1; 128x160 2x1"
    (no_torch && fp8_bench 14 --scale block --sizes $blk --cluster 1x1 --scale-mul interleave)
    (no_torch && fp8_bench 14 --scale block --sizes $blk --cluster 2x1 --tile 128x160x128)
    echo "== $(el) s: per-tensor scales, $blk, 1x1, tiles 128x128, 128x160, 128x256 (the ceilings)"
    (no_torch && fp8_bench 20 --scale tensor --sizes $blk --cluster 1x1 --tile 128x128x128,128x160x128,128x256x128)
    echo "== $(el) s: registers and spills (sm_90a)"
    echo "block 128x128 promote: $(fp8_usage --scale block)"
    echo "block 128x128 interleave: $(fp8_usage --scale block --scale-mul interleave)"
    echo "block 128x160: $(fp8_usage --scale block --tile 128x160x128)"
    if [ "$(el)" -lt 95 ]; then
        echo "== $(el) s: ncu, block scales 128x160"
        prof_160
    else
        echo "== $(el) s: ncu skipped (time)"
    fi
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
