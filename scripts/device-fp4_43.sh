#!/bin/sh
# Branch fp4_43 on one H200 (issue 17: the NVFP4 GEMV at 80% of the copy at (M,K,L) =
# (7168,16384,1) and (7168,2048,4); (4096,7168,8) met at 81.55), under 50 s of GPU work after the
# lead's `make all tests` (nothing is built here); log $OUT/fp4_43.log.
# Decided (bench/RESULTS.md fp4_43; three passes on an H200, % of the copy in turns in one
# process): the wide k-tiles (two vectors a lane a row, one ahead: a warp's 1 KB of each row at
# once) the library's where two ahead ran (the blocks 4 an SM or fewer): over narrow (two ahead
# of 1,024) +1.60, +1.50, +1.70 points at (7168,16384,1), the default 79.1-80.2; a k-tile at a
# time at 7 blocks an SM (72 registers) the library's before sm_100: over six +1.80, +1.95,
# +1.50 at (7168,2048,4) (the third's rounds +3.20, -0.20: "within the spread"), the default
# 78.5-81.2.  ncu on one cold launch: wide 24.64 us, narrow 24.29 (DRAM 58.1 / 58.8% of its
# peak): one launch of wide is no faster; its gain is in back-to-back calls.
# This script (the extra pass, 20:10) times both again in four rounds each (A B B A A B B A in
# one process a shape), and wide against narrow under CUTEC_GEMV_PDL=0 (the plain launch: is
# wide's gain the dependent launch's overlap of one call's end with the next one's start?), then
# the unchanged (4096,7168,8).  The defaults are checked on the GPU against float64 first, every
# element of y (`cutec run gemv`, odd sizes); each form's first bench row is checked too.
# What it decides ("decides:" lines), from the rounds (the default's row against the old form's
# next to it; points of the copy): a WRONG or failed row -> "revert (wrong)"; mean >= 1 with at
# most one round <= 0 -> "confirmed"; mean <= -1 -> "revert"; else "within the spread (keep)";
# the default's mean against the issue's 80; and the plain launch's rounds (nothing decided).
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
    device_gemv_run --dtype nvfp4 --shape 4100x8256
    device_gemv_run --dtype nvfp4 --shape 1030x2080 --batch 3
    echo "== in turns, % of the copy"
    GEMV_TIMEOUT=16 bench one lib,narrow,narrow,lib,lib,narrow,narrow,lib 7168x16384
    GEMV_TIMEOUT=14 bench three lib,blocks6,blocks6,lib,lib,blocks6,blocks6,lib 7168x2048 --batch 4
    echo "-- the plain launch (CUTEC_GEMV_PDL=0)"
    CUTEC_GEMV_PDL=0 GEMV_TIMEOUT=12 bench plain lib,narrow,narrow,lib 7168x16384
    GEMV_TIMEOUT=12 bench two lib,lib 4096x7168 --batch 8
    device_end
}
# pct NAME I: the % of the copy of row I (1-based) of bench NAME; "W" where a row is WRONG or
# failed; "" where there is no such row
pct()
{
    awk -v i="$2" '/ N=/ { n++; if (/WRONG|failed/) w = 1; if (n == i) for (j = NF; j > 3; j--) if ($j ~ /^[0-9.]+%$/) { p = $j; sub("%", "", p); break } }
        END { if (w) print "W"; else print p }' "$out/turns-$1.txt" 2>/dev/null
}
# decide NAME OLD SHAPE ROUNDS [measure]: the default against the form it replaced in bench NAME's
# rows, ROUNDS "L:O ..." (a round: the default's row L less the old form's row O); with
# "measure", the rounds alone (nothing decided)
decide()
{
    v=""
    for r in $4; do v="$v $(pct "$1" "${r%:*}"):$(pct "$1" "${r#*:}")"; done
    echo "$v" | awk -v n="$2" -v s="$3" -v measure="${5:-}" '{
        for (i = 1; i <= NF; i++) { split($i, p, ":"); if (($i) ~ /W/) w = 1; if (p[1] == "" || p[2] == "") e = 1
            d[i] = p[1] - p[2]; a += p[1]; o += p[2]; m += d[i]; if (d[i] <= 0) neg++; r = r sprintf(" %+.2f", d[i]) }
        if (w) { print "decides: the default over " n " at " s ": revert (wrong)"; exit }
        if (e || !NF) { print "decides: the default over " n " at " s ": not timed"; exit }
        m /= NF; a /= NF; o /= NF
        v = m >= 1 && neg <= 1 ? "confirmed" : m <= -1 ? "revert" : "within the spread (keep)"
        if (measure) v = "nothing decided (a measure)"
        printf "decides: the default over %s at %s: %s (rounds%s, mean %+.2f; the default %.2f, %s 80; %s %.2f)\n",
            n, s, v, r, m, a, (a >= 80 ? "meets" : "short of"), n, o }'
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
    decide one narrow 7168x16384 "1:2 4:3 5:6 8:7"
    decide three blocks6 7168x2048x4 "1:2 4:3 5:6 8:7"
    decide plain "narrow, the plain launch," 7168x16384 "1:2 4:3" measure
    mean2 two 4096x7168x8
else
    echo "decides: nothing (no GPU here)"
fi
