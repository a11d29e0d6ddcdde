#!/bin/sh
# prof35's profile of the GEMVs behind issue 17 (about 60-90 s on one H200 after the build):
# why the NVFP4 GEMV is at 72-73% of a device copy at (7168,16384,1) and the bf16 one at 90%.
# Nsight Compute (ncu, the clocks left alone, the caches flushed before each replay pass, so
# every figure is of a cold L2) on ONE launch each (the third of its name) of
#   nvfp4-l1   the library's NVFP4 GEMV (7168,16384,1)     blockscaled_kernel_N
#   nvfp4-l8   the library's NVFP4 GEMV (4096,7168,8)      blockscaled_kernel_N
#   bf16       the library's bf16 GEMV 16384x4096          rows_kernel_N
#   copy-66    a copy kernel of NVFP4 (7168,16384,1)'s bytes: `run elementwise --op neg`, bf16
#              7168x4608 (66.06 MB read, as many written), what the bench's D2D copy moves
#   copy-134   the same at 16384x4096 (134 MB: the bf16 GEMV's A; (4096,7168,8) reads 132 MB)
# (the bench's reference is cuMemcpyDtoD, which ncu does not profile as a kernel.)
# Read the table (one row a kernel):
#   rd MB / need: DRAM bytes read against the bytes the count asks (A, scales, x, y): above 1.00
#              is over-fetch (a scale read twice, sectors read and not used);
#   DRAM GB/s: read + written over the profiler's duration; dram%: of the DRAM's peak;
#   L2 hit%:   lts sector hit rate (cold L2: hits are re-reads within the launch);
#   L2/DRAM:   sectors L1 asked of L2 over sectors L2 read from DRAM (1.00: each byte once);
#   sec/req:   global-load sectors per request (16: a warp's 16-byte loads, all used);
#   SM%, issue%, occ%: SM throughput, issue slots busy, achieved occupancy;
#   stalls:    the four largest stall reasons, in warps an issued instruction ("selected",
#              the issue itself, left out of the four; "of": the sum of all, with it: the
#              cycles between one warp's issues).
# Checked first: each GEMV against float64 on the GPU (`cutec run gemv`), then the bench's rows
# (the figure beside the D2D copy).  Without ncu it says where it looked and prints the bench's
# rows alone.  The raw ncu output of each kernel is $OUT/prof35-NAME.txt; the log $OUT/prof35.log.
# ncu's figures are read in whatever unit it prints them (nsecond or us, Mbyte, Gbyte/second,
# Ghz, thousands separators: prof_row); `sh scripts/device-prof35.sh units` checks that reading
# without a GPU (session 36: the us and DRAM GB/s columns of session 35's run were misread).
# What it decides: nothing (a profile).  Past BUDGET_S (90) a step prints "skipped".
. scripts/device-common.sh
log="$out/prof35.log"
start=$(date +%s) budget=${BUDGET_S:-90}
prof_tag=prof35

# `sh scripts/device-prof35.sh units`: prof_row on one kernel's figures as ncu prints them in
# three unit styles (base units; usecond, Mbyte and cycle/nsecond; ms, Kbyte and Ghz): the
# three rows must read the same (91.9 us, 66.1 MB, 1.000 of the need, 720 GB/s, 1980 MHz)
units()
{
    for style in "nsecond 91,872 byte 66,083,840 byte 80,000 cycle/second 1,980,000,000" \
        "usecond 91.872 Mbyte 66.08384 Mbyte 0.08 cycle/nsecond 1.98" "ms 0.091872 Kbyte 66,083.84 Kbyte 80 Ghz 1.98"; do
        set -- $style
        printf '  gemv_kernel_3 (448, 1, 1)x(128, 1, 1)\n    gpu__time_duration.sum %s %s\n' "$1" "$2" >"$out/prof35-units.txt"
        printf '    dram__bytes_read.sum %s %s\n    dram__bytes_write.sum %s %s\n' "$3" "$4" "$5" "$6" >>"$out/prof35-units.txt"
        printf '    sm__cycles_elapsed.avg.per_second %s %s\n    dram__throughput.avg.pct_of_peak_sustained_elapsed %% 75.1\n' \
            "$7" "$8" >>"$out/prof35-units.txt"
        echo "    launch__registers_per_thread register/thread 128" >>"$out/prof35-units.txt"
        echo "$1 $3 $7: $(prof_row units 66083840 "$out/prof35-units.txt")"
    done
}
[ "${1:-}" = units ] && units && exit 0


pass()
{
    device_begin
    have_ncu=1
    find_ncu || have_ncu=0
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU: skipped (the checks, the bench rows and the profile)"
        return
    fi
    echo "== the library's GEMVs on the GPU at the profiled sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 7168x16384
    device_gemv_run --dtype nvfp4 --shape 4096x7168 --batch 8
    device_gemv_run --dtype bf16 --shape 16384x4096
    echo "== the bench's rows (each beside a D2D copy of its bytes)"
    GEMV_TIMEOUT=12 device_gemv --dtype nvfp4 --shape 7168x16384
    GEMV_TIMEOUT=12 device_gemv --dtype nvfp4 --shape 4096x7168 --batch 8 | tail -n 1
    GEMV_TIMEOUT=12 device_gemv --dtype bf16 --shape 16384x4096 | tail -n 1
    if [ $have_ncu = 0 ]; then
        echo "== no ncu: the bench's rows above are all this pass has"
        return
    fi
    echo "== ncu, one launch each (cold L2; see the header for the columns)"
    : >"$out/prof35-rows.txt"
    # the bytes each count reads: A and its e4m3 scales (K/16 a row), x (and its scales), y (f16)
    prof nvfp4-l1 blockscaled 66083840 run gemv --dtype nvfp4 --shape 7168x16384 --iters 3
    prof nvfp4-l8 blockscaled 132218368 run gemv --dtype nvfp4 --shape 4096x7168 --batch 8 --iters 3
    prof bf16 rows 134258688 run gemv --dtype bf16 --shape 16384x4096 --iters 3
    prof copy-66 ew 66060288 run elementwise --op neg --dtype bf16 --shape 7168x4608 --iters 3
    prof copy-134 ew 134217728 run elementwise --op neg --dtype bf16 --shape 16384x4096 --iters 3
    echo "== the table"
    prof_table
    device_end
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
echo "decides: nothing to flip (a profile)"
