#!/bin/sh
# Branch fp4_43 on one H200 (issue 17: the NVFP4 GEMV at 80% of the copy at (M,K,L) =
# (7168,16384,1) and (7168,2048,4); (4096,7168,8) met at 81.55), under 50 s of GPU work after the
# lead's `make all tests` (nothing is built here); log $OUT/fp4_43.log.
# Decided in the mid pass (18:47 UTC, H200, % of the copy in turns in one process; bench/RESULTS.md
# fp4_43): the wide k-tiles (two vectors a lane a row, one ahead: a warp's 1 KB of each row at
# once) the library's where two ahead ran (the blocks 4 an SM or fewer): 79.4 / 80.2 against
# 78.7 / 77.7 at (7168,16384,1) (at (4096,7168,8) wide lost 10 points: not taken there); a k-tile
# at a time at 7 blocks an SM (72 registers) the library's: 81.2 / 79.6 against 79.5 / 77.7 at
# (7168,2048,4); batches in one walk deleted (-24 points).  The second pass (19:05) confirmed
# both (+1.50 against narrow, +1.95 against blocks6) and deleted 8 blocks an SM (-3.85); its ncu
# of one cold launch of the wide form read 24.03 us and DRAM 59.5% of its peak, where session
# 42's two ahead read 24.1 us and 59.3%.
# This script (the final pass) confirms both again against the old forms, still selectable by
# CUTEC_GEMV_TRIAL: narrow (two ahead of 1,024) at (7168,16384,1) and blocks6 at (7168,2048,4);
# then ncu on one launch of each of wide and narrow at (7168,16384,1) in the same script (is
# the gain in a launch, or between back-to-back launches?); then the unchanged (4096,7168,8),
# where the budget allows.  The defaults are first checked on the GPU against float64, every
# element of y (`cutec run gemv`, odd sizes), then timed in turns with the old forms in one
# process a shape (`cutec bench gemv --forms`, each form's first row checked against float64,
# each row beside a D2D copy of its bytes).
# What it decides ("decides:" lines), from the two rounds at a shape (the default's row against
# the old form's next to it; points of the copy): a WRONG or failed row -> "revert (wrong)";
# mean >= 1 and both rounds > 0 -> "confirmed"; mean <= -1 -> "revert"; else "within the spread
# (keep)"; and the default's mean against the issue's 80 at each shape.  ncu decides nothing.
#   BUDGET=40 sh scripts/device-fp4_43.sh
. scripts/device-common.sh
log="$out/fp4_43.log"
start=$(date +%s)
budget=${BUDGET:-40} # (no step starts past it: the last ends by about 50 s)

# bench NAME FORMS SHAPE ARGS: `cutec bench gemv --dtype nvfp4 --shape SHAPE ARGS --forms FORMS`,
# its rows in $out/turns-NAME.txt (in the order of FORMS)
bench()
{
    n=$1 f=$2 s=$3 && shift 3
    echo "-- $s $* --forms $f $(el_s)"
    device_gemv --dtype nvfp4 --shape "$s" "$@" --forms "$f" | tee "$out/turns-$n.txt"
}
pass()
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU: skipped (the checks and the benches)"
        return
    fi
    echo "== checks on the GPU against float64 (every element)"
    device_gemv_run --dtype nvfp4 --shape 1030x4160 --batch 2
    device_gemv_run --dtype nvfp4 --shape 4100x8256
    device_gemv_run --dtype nvfp4 --shape 1030x2080 --batch 3
    echo "== in turns, % of the copy"
    GEMV_TIMEOUT=14 bench one lib,narrow,narrow,lib 7168x16384
    GEMV_TIMEOUT=14 bench three lib,blocks6,blocks6,lib 7168x2048 --batch 4
    profile 0 wide
    profile narrow narrow
    GEMV_TIMEOUT=12 bench two lib,lib 4096x7168 --batch 8
    device_end
}
# profile TRIAL NAME: ncu on one launch (the bench's third; the clocks left alone) of
# (7168,16384,1) under CUTEC_GEMV_TRIAL=TRIAL, its duration and memory lines into
# $out/ncu-NAME.txt; nothing where ncu is missing or the budget is spent
profile()
{
    device_late "ncu $2" && return
    ncu=$(command -v ncu 2>/dev/null || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    [ -z "$ncu" ] && echo "-- ncu: none" && return
    echo "-- ncu, $2 at 7168x16384 $(el_s)"
    CUTEC_GEMV_TRIAL=$1 timeout 12 "$ncu" --clock-control none -k regex:blockscaled --launch-skip 2 \
        --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
        build/cutec bench gemv --dtype nvfp4 --shape 7168x16384 --iters 3 >"$out/ncu-$2.txt" 2>&1
    grep -E "Duration|DRAM Throughput|L1/TEX Cache|L2 Cache|Hit Rate|==ERROR==" "$out/ncu-$2.txt" | head -n 8
}
# pct NAME I: the % of the copy of row I (1-based) of bench NAME; "W" where a row is WRONG or
# failed; "" where there is no such row
pct()
{
    awk -v i="$2" '/ N=/ { n++; if (/WRONG|failed/) w = 1; if (n == i) for (j = NF; j > 3; j--) if ($j ~ /^[0-9.]+%$/) { p = $j; sub("%", "", p); break } }
        END { if (w) print "W"; else print p }' "$out/turns-$1.txt" 2>/dev/null
}
# decide NAME OLD SHAPE LIB1 O1 O2 LIB2: the default (rows LIB1, LIB2) against the form it
# replaced (rows O1, O2): the rounds LIB1 - O1 and LIB2 - O2
decide()
{
    awk -v n="$2" -v s="$3" -v a1="$(pct "$1" "$4")" -v t1="$(pct "$1" "$5")" -v t2="$(pct "$1" "$6")" \
        -v a2="$(pct "$1" "$7")" 'BEGIN {
        if ((a1 t1 t2 a2) ~ /W/) { print "decides: the default over " n " at " s ": revert (wrong)"; exit }
        if (a1 == "" || t1 == "" || t2 == "" || a2 == "") { print "decides: the default over " n " at " s ": not timed"; exit }
        d1 = a1 - t1; d2 = a2 - t2; m = (d1 + d2) / 2
        v = m >= 1 && d1 > 0 && d2 > 0 ? "confirmed" : m <= -1 ? "revert" : "within the spread (keep)"
        l = (a1 + a2) / 2; t = (t1 + t2) / 2
        printf "decides: the default over %s at %s: %s (rounds %+.2f, %+.2f, mean %+.2f; the default %.2f, %s 80; %s %.2f)\n",
            n, s, v, d1, d2, m, l, (l >= 80 ? "meets" : "short of"), n, t }'
}
# mean2 NAME: the default's two rows of bench NAME against 80
mean2()
{
    awk -v s="$2" -v a="$(pct "$1" 1)" -v b="$(pct "$1" 2)" 'BEGIN {
        if ((a b) ~ /W/ || a == "" || b == "") { print "decides: the default at " s ": not timed or wrong (" a " " b ")"; exit }
        m = (a + b) / 2; printf "decides: the default at %s: %.2f (%s, %s), %s 80\n", s, m, a, b, (m >= 80 ? "meets" : "short of") }'
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
if nvidia-smi >/dev/null 2>&1; then
    decide one narrow 7168x16384 1 2 3 4
    decide three blocks6 7168x2048x4 1 2 3 4
    mean2 two 4096x7168x8
else
    echo "decides: nothing (no GPU here)"
fi
