#!/bin/sh
# A pass of branch fp4_42 on one H200 (issue 17: the NVFP4 GEMV at 80% of the copy at (M,K,L)
# = (7168,16384,1), (4096,7168,8), (7168,2048,4)), under 50 s of GPU work after the lead's
# `make all tests` (nothing is built here); log $OUT/fp4_42.log, ncu's raw output
# $OUT/prof35-NAME.txt (prof35's helpers: scripts/device-prof35.sh).
# The mid pass (16:04 UTC, H200, % of the copy in turns in one process, lib / words / words /
# lib) decided: the scale words (cfg.scale_words: a warp's scale pairs of rows 2h and 2h+1 by
# one 4-byte load a lane of row 2h + (lane & 1)'s group and a shuffle with the neighbour lane)
# the library's in the register forms, k-tiles ahead (73.3 / 72.3 -> 75.5 / 76.4 at
# (7168,16384,1), 77.8 / 77.2 -> 79.3 / 80.1 at (4096,7168,8)); deleted a k-tile at a time
# (72.5 / 70.6 -> 65.9 / 67.5 at (7168,2048,4)).  CUTEC_GEMV_TRIAL=no-words gives the 16-bit
# pairs back (their emitted CUDA main's, md5).
# This pass:
# 1. The library's default on the GPU against float64, every element, at odd sizes of each
#    walk (one and two k-tiles ahead: "scale words" in the row; a k-tile at a time: not).
# 2. At (7168,16384,1) and (4096,7168,8), one process each of `cutec bench gemv --dtype nvfp4
#    --forms lib,no-words,noscales,nodecode,no-words,lib` (lib and no-words each checked
#    against float64 first, each row beside a D2D copy of its bytes): the default against the
#    old pairs in turns, and two diagnostics, wrong by design and not checked (cfg.diag, over
#    the 16-bit pairs): noscales, every k-tile times k-tile 0's scales, loaded once (the kernel
#    without its scale loads: the most any cheaper way to them can win), and nodecode, each
#    k-tile's words and scale pairs xor-folded into the sums instead of decoded (the walk's
#    loads alone, about 72 SASS instructions a k-tile two ahead against 342: the ceiling of its
#    memory pattern; one ahead ptxas loads two k-tiles ahead there, with 80 bytes of spills).
#    Then at (7168,2048,4) `--forms lib,1,1,lib`: the library's k-tile at a time (unchanged)
#    and the register form one ahead forced (`--ahead 1`: now with the words; two k-tiles a
#    warp; session 29 measured it 64.9% against 69.5% a k-tile at a time, before the scales by
#    bits and the words).
# 3. Time left: Nsight Compute on the default's kernel at (7168,16384,1) (the mid pass's
#    profile of the pairs: L1/TEX 62.25% of its peak, DRAM 56.9%, issue 54.5%).
# What it decides ("decides:" lines), per shape (points of the copy):
#   the default, d = lib - no-words in each round (rows 1 - 2, 6 - 5): a failed check or a
#   WRONG row -> "revert (wrong)"; mean d >= 1 and d > 0 in both -> "confirmed"; mean d <= -1
#   -> "revert"; else "within the spread (keep)".
#   noscales: its row less the mean of no-words' (the pairs it runs over): at 3 points or more
#   "the scale loads are worth more work", else "not the scale loads"; the words' share of it.
#   one ahead at (7168,2048,4), d = one ahead - lib each round (rows 2 - 1, 3 - 4): a WRONG row
#   -> "wrong"; mean d >= 1 and d > 0 in both -> "the library's choice there next"; else "keep a
#   k-tile at a time".
#   nodecode: its row; at 90% of the copy or more "the decode's instructions (the walk's memory
#   pattern streams at N%)", else "the walk's memory pattern itself (N% with no decode)".
#   BUDGET=40 sh scripts/device-fp4_42.sh
PROF35_HELPERS=1 . scripts/device-prof35.sh
log="$out/fp4_42.log"
start=$(date +%s)
budget=${BUDGET:-40} # (no step starts past it: the last ends by about 50 s)
PROF_TIMEOUT=${PROF_TIMEOUT:-15}
# (beside prof35's: each SM's active cycles and each scheduler's instructions, their mean and
# extremes: an SM with 4 of (7168,16384,1)'s 448 blocks against one with 3)
metrics="$metrics,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min"
metrics="$metrics,smsp__inst_executed.avg,smsp__inst_executed.max,smsp__inst_executed.min"
prof_sections="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy"

# lines NAME: the sections' lines of $out/prof35-NAME.txt that say where the bound is, every
# stall reason above 0.2 warps an issue (prof_row prints the top four), and the SMs' spread
lines()
{
    f="$out/prof35-$1.txt"
    [ -f "$f" ] || return 0
    grep -E "^ +(Duration|Memory Throughput|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Mem Busy|Max Bandwidth|Mem Pipes Busy|L1/TEX Hit Rate|L2 Hit Rate|One or More Eligible|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Issued Warp Per Scheduler|Warp Cycles Per Issued Instruction|Achieved Occupancy|Theoretical Occupancy|Block Limit Registers) " "$f" |
        awk '{ $1 = $1; printf "  %s;", $0 } END { print "" }' | fold -s -w 150
    awk '$1 ~ /issue_stalled_.*per_issue_active/ { v = $NF; gsub(",", "", v); if (v + 0 > 0.2) {
            r = $1; sub("smsp__average_warps_issue_stalled_", "", r); sub("_per_issue_active.ratio", "", r)
            s = s sprintf(" %s %.2f", r, v) } }
        $1 ~ /^(sm__cycles_active|smsp__inst_executed)\.(avg|max|min)$/ { v = $NF; gsub(",", "", v); m[$1] = v + 0 }
        END { if (s != "") print "  stalls above 0.2:" s
            a = m["sm__cycles_active.avg"]; i = m["smsp__inst_executed.avg"]
            if (a) printf "  SM active cycles min / avg / max: %.0f / %.0f / %.0f (max/avg %.3f)\n", m["sm__cycles_active.min"], a, m["sm__cycles_active.max"], m["sm__cycles_active.max"] / a
            if (i) printf "  instructions a scheduler min / avg / max: %.0f / %.0f / %.0f (max/avg %.3f)\n", m["smsp__inst_executed.min"], i, m["smsp__inst_executed.max"], m["smsp__inst_executed.max"] / i }' "$f"
}
# checked WORDS ARGS: `cutec run gemv --dtype nvfp4 ARGS` (the library's) on the GPU, every
# element against float64; bad=1 unless verified, the same bits twice, with "scale words" in
# its row (WORDS 1) or not (0)
checked()
{
    want=$1 && shift
    device_late run "$@" && return
    r=$(timeout 10 build/cutec run gemv --dtype nvfp4 --iters 2 "$@" 2>&1 | tail -n 1)
    echo "run $*: $r"
    has=0
    case "$r" in *"scale words"*) has=1 ;; esac
    case "$r" in *"NOT the same"*) ;; *"verified against float64 (0 wrong"*) [ $has = "$want" ] && return 0 ;; esac
    echo "   ^ FAILED"
    bad=1
}
# turns SHAPE FORMS ARGS: `cutec bench gemv --dtype nvfp4 --shape SHAPE ARGS --forms FORMS`, its
# rows in $out/turns-SHAPE.txt
turns()
{
    s=$1 f=$2 && shift 2
    echo "-- $s $* --forms $f $(el_s)"
    device_gemv --dtype nvfp4 --shape "$s" "$@" --forms "$f" | tee "$out/turns-$s.txt"
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
    echo "== the library's default on the GPU against float64 $(el_s)"
    bad=0
    checked 1 --shape 1030x4160 --batch 2 --ahead 1
    checked 1 --shape 301x4160 --batch 3 --ahead 2
    checked 0 --shape 1030x2080 --batch 3
    echo "$bad" >"$out/bad.txt"
    echo "== the default and the 16-bit pairs in turns, the diagnostics between, beside the copy $(el_s)"
    GEMV_TIMEOUT=${GEMV_TIMEOUT:-12}
    turns 7168x16384 lib,no-words,noscales,nodecode,no-words,lib
    turns 4096x7168 lib,no-words,noscales,nodecode,no-words,lib --batch 8
    turns 7168x2048 lib,1,1,lib --batch 4
    [ $have_ncu = 0 ] && echo "== no ncu: the bench's rows are all this pass has" && return
    echo "== ncu, one launch (cold L2) $(el_s)"
    : >"$out/prof35-rows.txt"
    # the bytes the count reads: A and its scales (K/16 a row), x and its, y (f16) written
    prof l1 blockscaled 66083840 run gemv --dtype nvfp4 --shape 7168x16384 --iters 3
    printf "%-9s %7s %7s %5s %8s %5s %6s %6s %5s %5s %6s %5s  %s\n" kernel us "rd MB" /need "DRAM GB/s" dram% \
        "L2hit%" L2/DRAM sec/rq SM% issue% occ% "top stalls (warps an issue)"
    cat "$out/prof35-rows.txt"
    lines l1
    device_end
}
# pct N FORM SHAPE: the % of the copy of the N-th row of SHAPE's turns ("W": WRONG or failed,
# "N": a lib row without "scale words" or a no-words row with it, "": none; FORM any: no test)
pct()
{
    row=$(grep -E " $3 N=.*(%|failed)" "$out/turns-$3.txt" 2>/dev/null | sed -n "$1p")
    [ -z "$row" ] && return 0
    [ "$2" = noscales ] && case "$row" in *"scales once"*) copy_pct "$row" && return 0 ;; esac
    [ "$2" = nodecode ] && case "$row" in *"no decode"*) copy_pct "$row" && return 0 ;; esac
    case "$row" in *WRONG* | *failed*) echo W && return 0 ;; esac
    [ "$2" = any ] && copy_pct "$row" && return 0
    case "$2 $row" in "lib "*"scale words"* | "no-words "*) ;; *) echo N && return 0 ;; esac
    case "$2 $row" in "no-words "*"scale words"*) echo N && return 0 ;; esac
    copy_pct "$row"
}
# decide SHAPE: the rule of the header at SHAPE (rows lib, no-words, noscales, nodecode,
# no-words, lib)
decide()
{
    awk -v s="$1" -v a="$(pct 1 lib "$1")" -v b="$(pct 2 no-words "$1")" -v c="$(pct 5 no-words "$1")" \
        -v d="$(pct 6 lib "$1")" -v n="$(pct 3 noscales "$1")" -v nd="$(pct 4 nodecode "$1")" \
        -v bad="$(cat "$out/bad.txt" 2>/dev/null)" 'BEGIN {
        if (bad == 1 || (a b c d) ~ /W/) print "decides: words at " s ": revert (wrong)"
        else if ((a b c d) ~ /N/) print "decides: words at " s ": not taken (the rows say another form)"
        else if (a == "" || b == "" || c == "" || d == "") print "decides: words at " s ": not timed (lib " a " " d ", no-words " b " " c ")"
        else { d1 = a - b; d2 = d - c; m = (d1 + d2) / 2
            v = m >= 1 && d1 > 0 && d2 > 0 ? "confirmed" : m <= -1 ? "revert" : "within the spread (keep)"
            printf "decides: words at %s: %s (lib %s %s, no-words %s %s: %+.2f points, rounds %+.2f %+.2f)\n", s, v, a, d, b, c, m, d1, d2 }
        if (n == "" || b == "" || c == "" || (b c) ~ /[WN]/) print "decides: noscales at " s ": not timed"
        else { p = (b + c) / 2; g = n - p; v = g >= 3 ? "the scale loads are worth more work" : "not the scale loads"
            w = (a != "" && d != "" && (a d) !~ /[WN]/) ? sprintf("; the words won %+.2f of them", (a + d) / 2 - p) : ""
            printf "decides: noscales at %s: %s (%s against the pairs %s %s: %+.2f points%s)\n", s, v, n, b, c, g, w }
        if (nd == "") { print "decides: nodecode at " s ": not timed"; exit }
        v = nd >= 90 ? "the decode'"'"'s instructions (the walk'"'"'s memory pattern streams at " nd "%)" : \
            "the walk'"'"'s memory pattern itself (" nd "% with no decode)"
        printf "decides: nodecode at %s: bound by %s\n", s, v }'
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 80
if nvidia-smi >/dev/null 2>&1; then
    decide 7168x16384
    decide 4096x7168
    awk -v a="$(pct 1 any 7168x2048)" -v b="$(pct 2 any 7168x2048)" -v c="$(pct 3 any 7168x2048)" \
        -v d="$(pct 4 any 7168x2048)" 'BEGIN {
        if ((a b c d) ~ /W/) { print "decides: one ahead at 7168x2048: wrong"; exit }
        if (a == "" || b == "" || c == "" || d == "") { print "decides: one ahead at 7168x2048: not timed"; exit }
        d1 = b - a; d2 = c - d; m = (d1 + d2) / 2
        v = m >= 1 && d1 > 0 && d2 > 0 ? "the library'"'"'s choice there next" : "keep a k-tile at a time"
        printf "decides: one ahead at 7168x2048: %s (lib %s %s, one ahead %s %s: %+.2f points, rounds %+.2f %+.2f)\n", v, a, d, b, c, m, d1, d2 }'
else
    echo "decides: nothing (no GPU here)"
fi
