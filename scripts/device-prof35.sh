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
# the metrics (the two regex: families of names, each sure to match some: the ld counters, long
# scoreboard; a missing ldgsts counter or stall reason drops out.  A plain name this ncu lacks
# fails the run: prof then uses sections)
metrics="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum"
metrics="$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct"
metrics="$metrics,lts__t_sectors_srcunit_tex_op_read.sum,dram__sectors_read.sum"
metrics="$metrics,regex:^l1tex__t_(sectors|requests)_pipe_lsu_mem_global_op_(ld|ldgsts)\.sum$"
metrics="$metrics,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active"
metrics="$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum"
metrics="$metrics,launch__grid_size,launch__block_size,launch__registers_per_thread"
metrics="$metrics,regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$"

find_ncu()
{
    ncu=$(command -v ncu 2>/dev/null)
    for c in /usr/local/cuda/bin/ncu /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu \
        /usr/local/cuda*/nsight-compute*/ncu; do
        [ -z "$ncu" ] && [ -x "$c" ] && ncu=$c
    done
    [ -n "$ncu" ] && echo "ncu: $ncu ($($ncu --version 2>&1 | tail -n 1))" && return 0
    echo "ncu: none (looked at PATH, /usr/local/cuda/bin, /usr/local/cuda*/bin," \
        "/opt/nvidia/nsight-compute/*/, /usr/local/cuda*/nsight-compute*/)"
    return 1
}

# prof NAME KERNEL NEED cutec-args...: one launch of KERNEL_N under ncu, its raw output in
# $out/prof35-NAME.txt, its row in $out/prof35-rows.txt; NEED: the bytes the count reads
prof()
{
    name=$1 kern=$2 need=$3 && shift 3
    device_late "ncu $name" && return
    f="$out/prof35-$name.txt"
    echo "-- +$(($(date +%s) - start)) s: $name: cutec $*"
    : >"$f"
    [ -z "${sections_only:-}" ] && timeout 25 "$ncu" --clock-control none --kernel-name-base function \
        --kernel-name "regex:^${kern}_kernel_[0-9]+$" --launch-skip 2 --launch-count 1 --print-units base \
        --metrics "$metrics" build/cutec "$@" >"$f" 2>&1
    if ! grep -q "dram__bytes_read.sum" "$f"; then # a metric this ncu lacks: its sections, from now on
        [ -z "${sections_only:-}" ] && echo "no metrics: $(grep -m 2 -iE "error|unknown|fail" "$f" | cut -c1-200 | tr '\n' ' ')"
        sections_only=1
        timeout 25 "$ncu" --clock-control none --kernel-name-base function --kernel-name "regex:^${kern}_kernel_[0-9]+$" \
            --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section Occupancy build/cutec "$@" >>"$f" 2>&1
        grep -E "_kernel_|Duration|Throughput|Hit Rate|Achieved Occupancy|Warp Cycles Per Issued" "$f" | head -14
        return
    fi
    grep -m 1 -E "verified|FAILED|wrong" "$f" | cut -c1-160
    prof_row "$name" "$need" "$f" | tee -a "$out/prof35-rows.txt"
}

# prof_row NAME NEED FILE: the table's row of one kernel from ncu's "METRIC UNIT VALUE" lines
# in FILE, every value in its base unit (second, byte, byte/second, hertz) whatever unit ncu
# chose for it: a time in nsecond, usecond, msecond or second (or ns / us / ms / s), a size
# or rate with an SI prefix (Kbyte, Mbyte/second, Gbyte/second, Tbyte/second, Ghz), a rate
# per a unit of time (cycle/nsecond, byte/usecond); thousands separators dropped
prof_row()
{
    awk -v n="$1" -v need="$2" '
        # the factor of one unit word into its base: time words, else an SI prefix
        function word(w) {
            if (w == "nsecond" || w == "ns") return 1e-9
            if (w == "usecond" || w == "us") return 1e-6
            if (w == "msecond" || w == "ms") return 1e-3
            if (w == "second" || w == "s") return 1
            if (w ~ /^[kK][a-z]/) return 1e3
            if (w ~ /^M[a-z]/) return 1e6
            if (w ~ /^G[a-z]/) return 1e9
            if (w ~ /^T[a-z]/) return 1e12
            return 1
        }
        # a unit "A" or "A/B" (byte/second, cycle/nsecond) as one factor
        function factor(u,   i) {
            i = index(u, "/")
            return i ? word(substr(u, 1, i - 1)) / word(substr(u, i + 1)) : word(u)
        }
        $1 ~ /_kernel_[0-9]+$/ && !k { k = $1 }
        # "NAME [UNIT] VALUE"
        NF >= 2 && $1 ~ /__/ { v = $NF; gsub(",", "", v); m[$1] = (v + 0) * (NF >= 3 ? factor($(NF - 1)) : 1) }
        END {
            t = m["gpu__time_duration.sum"]; rd = m["dram__bytes_read.sum"]; wr = m["dram__bytes_write.sum"]
            ds = m["dram__sectors_read.sum"]; if (!ds) ds = rd / 32
            ld = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] + m["l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum"]
            rq = m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] + m["l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum"]
            for (s in m) if (s ~ /issue_stalled_/) { r = s; sub("smsp__average_warps_issue_stalled_", "", r)
                sub("_per_issue_active.ratio", "", r); sum += m[s]; if (r != "selected") st[r] = m[s] }
            top = ""
            for (i = 0; i < 4; i++) { b = ""; for (r in st) if (b == "" || st[r] > st[b]) b = r
                if (b != "") { top = top sprintf(" %s %.2f", b, st[b]); delete st[b] } }
            printf("%-9s %7.1f %7.1f %5.3f %8.0f %5.1f %6.1f %6.2f %5.1f %5.1f %6.1f %5.1f  %s (of %.2f) [%s, %d regs, %.0f MHz]\n",
                   n, t * 1e6, rd / 1e6, need ? rd / need : 0, t ? (rd + wr) / t / 1e9 : 0,
                   m["dram__throughput.avg.pct_of_peak_sustained_elapsed"], m["lts__t_sector_hit_rate.pct"],
                   ds ? m["lts__t_sectors_srcunit_tex_op_read.sum"] / ds : 0, rq ? ld / rq : 0,
                   m["sm__throughput.avg.pct_of_peak_sustained_elapsed"],
                   m["smsp__issue_active.avg.pct_of_peak_sustained_active"],
                   m["sm__warps_active.avg.pct_of_peak_sustained_active"], top, sum, k,
                   m["launch__registers_per_thread"], m["sm__cycles_elapsed.avg.per_second"] / 1e6) }' "$3"
}

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
    printf "%-9s %7s %7s %5s %8s %5s %6s %6s %5s %5s %6s %5s  %s\n" kernel us "rd MB" /need "DRAM GB/s" dram% \
        "L2hit%" L2/DRAM sec/rq SM% issue% occ% "top stalls (warps an issue)"
    cat "$out/prof35-rows.txt"
    device_end
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
echo "decides: nothing to flip (a profile)"
