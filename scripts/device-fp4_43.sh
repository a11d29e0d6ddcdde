#!/bin/sh
# Branch fp4_43 on one H200 (issue 17: the NVFP4 GEMV at 80% of the copy at (M,K,L) =
# (7168,16384,1) and (7168,2048,4); (4096,7168,8) met at 81.55), under 50 s of GPU work after the
# lead's `make all tests` (nothing is built here); log $OUT/fp4_43.log.
# The trials (CUTEC_GEMV_TRIAL, bench/RESULTS.md fp4_43):
#   wide     the register form (k-tiles ahead) with k-tiles of 2,048 elements, one ahead: a warp
#            asks for 1 KB of each of its 4 rows at once, not 512 bytes (128 registers, 4 blocks
#            an SM); where the library runs the register form ((7168,16384,1), (4096,7168,8))
#   blocks7  a k-tile at a time ((7168,2048,4)'s form) at 7 blocks an SM (72 registers), not 6
#   batches  where a k-tile at a time runs over batches ((7168,2048,4)): a grid of one batch, each
#            warp walking its rows' wide k-tiles through every batch in one pipeline one ahead
# Each is first checked on the GPU against float64, every element of y (`cutec run gemv`, odd
# sizes), then timed in turns with the library's default in one process a shape (`cutec bench
# gemv --forms`, each form's first row checked against float64, each row beside a D2D copy of
# its bytes).
# What it decides ("decides:" lines), per trial and shape, from the two rounds (trial - default,
# points of the copy: the first trial row against the first lib row, the second against the
# last): a WRONG or failed row -> "revert (wrong)"; mean >= 1 and both rounds > 0 -> "default";
# mean <= -1 -> "delete"; else "within the spread"; and the default's mean against the issue's 80.
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
    CUTEC_GEMV_TRIAL=wide device_gemv_run --dtype nvfp4 --shape 6500x4160 --batch 2
    CUTEC_GEMV_TRIAL=blocks7 device_gemv_run --dtype nvfp4 --shape 1030x2080 --batch 3
    CUTEC_GEMV_TRIAL=batches device_gemv_run --dtype nvfp4 --shape 1032x2048 --batch 3
    CUTEC_GEMV_TRIAL=batches device_gemv_run --dtype nvfp4 --shape 2064x4096 --batch 5
    echo "== in turns, % of the copy"
    GEMV_TIMEOUT=14 bench wide1 lib,wide,wide,lib 7168x16384
    GEMV_TIMEOUT=15 bench three lib,batches,blocks7,blocks7,batches,lib 7168x2048 --batch 4
    GEMV_TIMEOUT=14 bench wide2 lib,wide,wide,lib 4096x7168 --batch 8
    device_end
}
# pct NAME I: the % of the copy of row I (1-based) of bench NAME; "W" where a row is WRONG or
# failed; "" where there is no such row
pct()
{
    awk -v i="$2" '/ N=/ { n++; if (/WRONG|failed/) w = 1; if (n == i) for (j = NF; j > 3; j--) if ($j ~ /^[0-9.]+%$/) { p = $j; sub("%", "", p); break } }
        END { if (w) print "W"; else print p }' "$out/turns-$1.txt" 2>/dev/null
}
# decide NAME TRIAL SHAPE LIB1 T1 T2 LIB2: the rounds T1 - LIB1 and T2 - LIB2 (row numbers)
decide()
{
    awk -v n="$2" -v s="$3" -v a1="$(pct "$1" "$4")" -v t1="$(pct "$1" "$5")" -v t2="$(pct "$1" "$6")" \
        -v a2="$(pct "$1" "$7")" 'BEGIN {
        if ((a1 t1 t2 a2) ~ /W/) { print "decides: " n " at " s ": revert (wrong)"; exit }
        if (a1 == "" || t1 == "" || t2 == "" || a2 == "") { print "decides: " n " at " s ": not timed"; exit }
        d1 = t1 - a1; d2 = t2 - a2; m = (d1 + d2) / 2
        v = m >= 1 && d1 > 0 && d2 > 0 ? "default" : m <= -1 ? "delete" : "within the spread"
        l = (a1 + a2) / 2; t = (t1 + t2) / 2
        printf "decides: %s at %s: %s (rounds %+.2f, %+.2f, mean %+.2f; the default %.2f, %s 80; %s %.2f, %s 80)\n",
            n, s, v, d1, d2, m, l, (l >= 80 ? "meets" : "short of"), n, t, (t >= 80 ? "meets" : "short of") }'
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
if nvidia-smi >/dev/null 2>&1; then
    decide wide1 wide 7168x16384 1 2 3 4
    decide three batches 7168x2048x4 1 2 5 6
    decide three blocks7 7168x2048x4 1 3 4 6
    decide wide2 wide 4096x7168x8 1 2 3 4
else
    echo "decides: nothing (no GPU here)"
fi
