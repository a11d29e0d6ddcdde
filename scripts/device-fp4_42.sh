#!/bin/sh
# The mid pass of branch fp4_42 on one H200 (issue 17: the NVFP4 GEMV at 80% of the copy at
# (M,K,L) = (7168,16384,1), (4096,7168,8), (7168,2048,4)), under 50 s of GPU work after the
# lead's `make all tests` (nothing is built here); log $OUT/fp4_42.log, ncu's raw output
# $OUT/prof35-NAME.txt (prof35's helpers: scripts/device-prof35.sh).
# 1. `cutec bench gemv --dtype nvfp4`: the library's form at the three shapes, each checked
#    against float64 on the GPU first, beside a D2D copy of its bytes; the bf16 GEMV at
#    7168x4096 (A's bytes and rows of 8 KB as NVFP4's (7168,16384,1), another decode) beside.
# 2. Nsight Compute on one launch (the third) of the library's NVFP4 kernel at each shape, then
#    a copy kernel of the first shape's bytes (`run elementwise --op neg`, bf16 7168x4608):
#    prof35's metrics (its table row: DRAM bytes against the count, DRAM %, L2 hit, issue %,
#    occupancy, the top stalls) and the SpeedOfLight, SchedulerStats, WarpStateStats,
#    MemoryWorkloadAnalysis and Occupancy sections' lines that say which unit is the bound:
#    L1/TEX and L2 and DRAM throughput %, eligible warps a scheduler, warp cycles an issue.
# What it decides (the final pass's form; "decides:" lines): per shape, from the profile,
#   L1/TEX throughput >= 80% of its peak: "the L1 (the scale pairs' wavefronts)";
#   else DRAM throughput below the copy's by 10 points or more with long scoreboard the largest
#   stall: "the DRAM's rate at this walk's requests (what is in flight is there, the rate is
#   not)"; else issue slots >= 70% busy: "issue (the decode's instructions)"; else "latency".
#   BUDGET=50 sh scripts/device-fp4_42.sh
PROF35_HELPERS=1 . scripts/device-prof35.sh
log="$out/fp4_42.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=${GEMV_TIMEOUT:-12}
PROF_TIMEOUT=${PROF_TIMEOUT:-14}
prof_sections="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy"

# lines NAME: the sections' lines of $out/prof35-NAME.txt that say where the bound is, and every
# stall reason above 0.2 warps an issue (prof_row prints the top four)
lines()
{
    f="$out/prof35-$1.txt"
    [ -f "$f" ] || return 0
    grep -E "^ +(Duration|Memory Throughput|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Mem Busy|Max Bandwidth|Mem Pipes Busy|L1/TEX Hit Rate|L2 Hit Rate|One or More Eligible|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Issued Warp Per Scheduler|Warp Cycles Per Issued Instruction|Achieved Occupancy|Theoretical Occupancy|Block Limit Registers) " "$f" |
        awk '{ $1 = $1; printf "  %s;", $0 } END { print "" }' | fold -s -w 150
    awk '$1 ~ /issue_stalled_.*per_issue_active/ { v = $NF; gsub(",", "", v); if (v + 0 > 0.2) {
            r = $1; sub("smsp__average_warps_issue_stalled_", "", r); sub("_per_issue_active.ratio", "", r)
            s = s sprintf(" %s %.2f", r, v) } } END { if (s != "") print "  stalls above 0.2:" s }' "$f"
}
# sol NAME ROW: the section's figure on line ROW ("DRAM Throughput", "L1/TEX Cache Throughput")
sol() { awk -v r="$2" 'index($0, r) { v = $NF; gsub(",", "", v); print v + 0; exit }' "$out/prof35-$1.txt" 2>/dev/null; }
# verdict NAME: the rule of the header for one kernel against the copy's DRAM throughput
verdict()
{
    l1=$(sol "$1" "L1/TEX Cache Throughput") dr=$(sol "$1" "DRAM Throughput") cp=$(sol copy-66 "DRAM Throughput")
    row=$(grep "^$1 " "$out/prof35-rows.txt" 2>/dev/null)
    issue=$(echo "$row" | awk '{ print $11 }') top=$(echo "$row" | awk '{ print $13 }')
    awk -v n="$1" -v l1="$l1" -v dr="$dr" -v cp="$cp" -v is="$issue" -v top="$top" 'BEGIN {
        if (dr == "" || l1 == "") { print "decides: " n ": nothing (no profile)"; exit }
        v = l1 >= 80 ? "the L1 (the scale pairs'"'"' wavefronts)" : \
            (cp != "" && dr <= cp - 10 && top == "long_scoreboard") ? "the DRAM'"'"'s rate at this walk'"'"'s requests" : \
            is >= 70 ? "issue (the decode'"'"'s instructions)" : "latency"
        printf "decides: %s: bound by %s (L1/TEX %s%%, DRAM %s%% against the copy'"'"'s %s%%, issue %s%%, top stall %s)\n",
               n, v, l1, dr, cp == "" ? "-" : cp, is, top }'
}
pass()
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU: skipped (the benches and the profile)"
        return
    fi
    have_ncu=1
    find_ncu || have_ncu=0
    echo "== the library's NVFP4 GEMV, checked against float64, beside the copy $(el_s)"
    device_gemv --dtype nvfp4
    echo "== the bf16 GEMV at 7168x4096 (A's bytes and rows as NVFP4's (7168,16384,1)) $(el_s)"
    device_gemv --dtype bf16 --shape 7168x4096 | tail -n 1
    [ $have_ncu = 0 ] && echo "== no ncu: the bench's rows are all this pass has" && return
    echo "== ncu, one launch each (cold L2) $(el_s)"
    : >"$out/prof35-rows.txt"
    # the bytes each count reads: A and its scales (K/16 a row), x and its, y (f16) written
    prof l1 blockscaled 66083840 run gemv --dtype nvfp4 --shape 7168x16384 --iters 3
    prof l8 blockscaled 132218368 run gemv --dtype nvfp4 --shape 4096x7168 --batch 8 --iters 3
    prof l4 blockscaled 33092096 run gemv --dtype nvfp4 --shape 7168x2048 --batch 4 --iters 3
    prof copy-66 ew 66060288 run elementwise --op neg --dtype bf16 --shape 7168x4608 --iters 3
    echo "== the table $(el_s)"
    printf "%-9s %7s %7s %5s %8s %5s %6s %6s %5s %5s %6s %5s  %s\n" kernel us "rd MB" /need "DRAM GB/s" dram% \
        "L2hit%" L2/DRAM sec/rq SM% issue% occ% "top stalls (warps an issue)"
    cat "$out/prof35-rows.txt"
    for k in l1 l8 l4 copy-66; do
        echo "-- $k"
        lines $k
    done
    device_end
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 80
if nvidia-smi >/dev/null 2>&1; then
    for k in l1 l8 l4; do verdict $k; done
else
    echo "decides: nothing (no GPU here)"
fi
