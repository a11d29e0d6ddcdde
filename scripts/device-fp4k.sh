#!/bin/sh
# The GEMV pass of branch fp4k on a GPU machine (issue 17), about 80 s on one H200 after the
# build.  fp4k's forms were all measured slower on an H200 and deleted (bench/RESULTS.md, fp4k;
# docs/gemv.md, "fp4k's forms, measured slower and deleted"): the staggered walk and the bf16
# ring's 4 rows a warp (early mid pass, 21:41: slower in all 12 and 6 pairs), late loads and
# row tiles (second early pass 22:04 and mid pass 22:30: 6-15 points slower in all 14 pairs).
# So this pass changes nothing: it checks the library's NVFP4 on the GPU against float64 at odd
# sizes, then records the library's figures beside a device copy in one process a dtype (NVFP4
# at (7168,16384,1), (4096,7168,8), (7168,2048,4); bf16 at 8192x8192, 16384x4096, 4096x16384)
# for the table.  What it decides: nothing to flip (one line saying so).  Past
# BUDGET_S (80) a step prints "skipped".  Logs in $OUT (default build/device-out); the log's
# tail is printed.
. scripts/device-common.sh
log="$out/fp4k.log"
start=$(date +%s) budget=${BUDGET_S:-80}
pass()
{
    device_begin
    device_gpu || return
    echo "== the library's NVFP4 on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 2
    device_gemv_run --dtype nvfp4 --shape 4100x8256
    echo "== the library's figures (each row beside a device copy of the same bytes)"
    GEMV_TIMEOUT=45 device_gemv --dtype nvfp4
    GEMV_TIMEOUT=25 device_gemv --dtype bf16
    device_end
    echo "decides: nothing to flip (fp4k's forms were deleted after measuring slower; the library's forms stand)"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 40
