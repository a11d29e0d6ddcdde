#!/bin/sh
# Branch fp4_43 on one H200 (issue 17: the NVFP4 GEMV at 80% of the copy at (M,K,L) =
# (7168,16384,1) and (7168,2048,4); (4096,7168,8) met at 81.55), under 50 s of GPU work after the
# lead's `make all tests` (nothing is built here); log $OUT/fp4_43.log.
# Decided in the mid pass (18:47 UTC, H200, % of the copy in turns in one process; bench/RESULTS.md
# fp4_43): the wide k-tiles (two vectors a lane a row, one ahead: a warp's 1 KB of each row at
# once) the library's where two ahead ran (the blocks 4 an SM or fewer): 79.4 / 80.2 against
# 78.7 / 77.7 at (7168,16384,1) (at (4096,7168,8) wide lost 10 points: not taken there); a k-tile
# at a time at 7 blocks an SM (72 registers) the library's: 81.2 / 79.6 against 79.5 / 77.7 at
# (7168,2048,4); batches in one walk deleted (-24 points).
# This script (the final pass) confirms both against the old forms, still selectable by
# CUTEC_GEMV_TRIAL: narrow (two ahead of 1,024) at (7168,16384,1) and blocks6 at (7168,2048,4),
# and tries blocks8 (a k-tile at a time at 8 blocks an SM, 64 registers) there; the default
# alone at (4096,7168,8) (unchanged). Each is first checked on the GPU against float64, every
# element of y (`cutec run gemv`, odd sizes), then timed in turns with the default in one
# process a shape (`cutec bench gemv --forms`, each form's first row checked against float64,
# each row beside a D2D copy of its bytes).
# What it decides ("decides:" lines), from the two rounds at a shape (the first form row against
# the first lib row, the second against the last; points of the copy): a WRONG or failed row ->
# "revert (wrong)"; for narrow and blocks6 (the default - the old form): mean >= 1 and both
# rounds > 0 -> "confirmed"; mean <= -1 -> "revert"; else "within the spread (keep)"; for
# blocks8 (blocks8 - the default): "default" / "delete" / "within the spread" by the same
# marks; and the default's mean against the issue's 80 at each shape.  Last, where the budget
# allows, ncu on one launch of the wide form at (7168,16384,1) (DRAM throughput; nothing decided).
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
    CUTEC_GEMV_TRIAL=blocks8 device_gemv_run --dtype nvfp4 --shape 1030x2080 --batch 3
    echo "== in turns, % of the copy"
    GEMV_TIMEOUT=14 bench one lib,narrow,narrow,lib 7168x16384
    GEMV_TIMEOUT=15 bench three lib,blocks6,blocks8,blocks8,blocks6,lib 7168x2048 --batch 4
    GEMV_TIMEOUT=12 bench two lib,lib 4096x7168 --batch 8
    profile
    device_end
}
# profile: ncu on one launch of the wide form at (7168,16384,1) (the bench's third; the clocks
# left alone), its duration and memory lines (session 42's two ahead: 24.1 us, DRAM 59.3% of its
# peak, L1/TEX 45.7%); nothing where ncu is missing or the budget is spent
profile()
{
    device_late ncu && return
    ncu=$(command -v ncu 2>/dev/null || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    [ -z "$ncu" ] && echo "-- ncu: none" && return
    echo "-- ncu, the wide form at 7168x16384 $(el_s)"
    timeout 12 "$ncu" --clock-control none -k regex:blockscaled --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis \
        build/cutec bench gemv --dtype nvfp4 --shape 7168x16384 --iters 3 >"$out/ncu-wide.txt" 2>&1
    grep -E "Duration|Throughput|Hit Rate|Mem Busy|Max Bandwidth|==ERROR==" "$out/ncu-wide.txt" | head -n 16
}
# pct NAME I: the % of the copy of row I (1-based) of bench NAME; "W" where a row is WRONG or
# failed; "" where there is no such row
pct()
{
    awk -v i="$2" '/ N=/ { n++; if (/WRONG|failed/) w = 1; if (n == i) for (j = NF; j > 3; j--) if ($j ~ /^[0-9.]+%$/) { p = $j; sub("%", "", p); break } }
        END { if (w) print "W"; else print p }' "$out/turns-$1.txt" 2>/dev/null
}
# decide NAME FORM SHAPE LIB1 F1 F2 LIB2 [old]: the rounds F1 - LIB1 and F2 - LIB2 (row numbers);
# with "old", FORM is the form the default replaced, and the rounds LIB - FORM
decide()
{
    awk -v n="$2" -v s="$3" -v a1="$(pct "$1" "$4")" -v t1="$(pct "$1" "$5")" -v t2="$(pct "$1" "$6")" \
        -v a2="$(pct "$1" "$7")" -v old="${8:-}" 'BEGIN {
        if ((a1 t1 t2 a2) ~ /W/) { print "decides: " n " at " s ": revert (wrong)"; exit }
        if (a1 == "" || t1 == "" || t2 == "" || a2 == "") { print "decides: " n " at " s ": not timed"; exit }
        d1 = t1 - a1; d2 = t2 - a2; if (old) { d1 = -d1; d2 = -d2 }
        m = (d1 + d2) / 2; win = m >= 1 && d1 > 0 && d2 > 0
        v = old ? (win ? "confirmed" : m <= -1 ? "revert" : "within the spread (keep)") \
                : (win ? "default" : m <= -1 ? "delete" : "within the spread")
        l = (a1 + a2) / 2; t = (t1 + t2) / 2
        printf "decides: %s at %s: %s (rounds %+.2f, %+.2f, mean %+.2f%s; the default %.2f, %s 80; %s %.2f)\n",
            n, s, v, d1, d2, m, old ? ", the default over it" : "", l, (l >= 80 ? "meets" : "short of"), n, t }'
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
    decide one narrow 7168x16384 1 2 3 4 old
    decide three blocks6 7168x2048x4 1 2 5 6 old
    decide three blocks8 7168x2048x4 1 3 4 6
    mean2 two 4096x7168x8
else
    echo "decides: nothing (no GPU here)"
fi
