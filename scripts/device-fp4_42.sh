#!/bin/sh
# The mid pass of branch fp4_42 on one H200 (issue 17: the NVFP4 GEMV at 80% of the copy at
# (M,K,L) = (7168,16384,1), (4096,7168,8), (7168,2048,4)), under 50 s of GPU work after the
# lead's `make all tests` (nothing is built here); log $OUT/fp4_42.log, ncu's raw output
# $OUT/prof35-NAME.txt (prof35's helpers: scripts/device-prof35.sh).
# 1. The trial CUTEC_GEMV_TRIAL=words (cfg.scale_words: a warp's scale pairs of rows 2h and
#    2h+1 by one 4-byte load a lane, row 2h + (lane & 1)'s group, and one shuffle with the
#    neighbour lane: A's scale loads touch 32 sectors a k-tile, not 64) checked on the GPU
#    against float64, every element, at odd sizes of each walk (one and two k-tiles ahead, a
#    k-tile at a time); then at each shape one process of `cutec bench gemv --dtype nvfp4
#    --forms lib,words,noscales,nodecode,words,lib` (lib and words each checked against float64
#    first, each row beside a D2D copy of its bytes): the library's form and the trial in
#    turns, and between them two diagnostics, wrong by design and not checked (cfg.diag; the
#    register forms only, so not at (7168,2048,4)): noscales, every k-tile times k-tile 0's
#    scales, loaded once (the kernel without its scale loads: the most any cheaper way to them
#    can win), and nodecode, each k-tile's words and scale pairs xor-folded into the sums
#    instead of decoded (the walk's loads alone, some 72 SASS instructions a k-tile two ahead
#    against 342: the ceiling of its memory pattern; one ahead ptxas loads two k-tiles ahead
#    there, with 80 bytes of spills).
# 2. Nsight Compute on one launch (the third) of the library's NVFP4 kernel at each shape, then
#    a copy kernel of the first shape's bytes (`run elementwise --op neg`, bf16 7168x4608):
#    prof35's metrics (its table row: DRAM bytes against the count, DRAM %, L2 hit, issue %,
#    occupancy, the top stalls) and the SpeedOfLight, SchedulerStats, WarpStateStats,
#    MemoryWorkloadAnalysis and Occupancy sections' lines that say which unit is the bound:
#    L1/TEX and L2 and DRAM throughput %, eligible warps a scheduler, warp cycles an issue; and
#    each SM's active cycles (min / avg / max: near 1.00 max/avg, every warp ran at one rate
#    whatever its SM's blocks; near 1.18 at (7168,16384,1), the SMs with 4 blocks set the time).
#    Then, time left, the bf16 GEMV at 7168x4096 (A's bytes and rows of 8 KB as NVFP4's
#    (7168,16384,1), another decode).
# What it decides ("decides:" lines):
#   the trial, per shape (points of the copy, d = words - lib in each of the two rounds, the
#   rows 2 - 1 and N-1 - N of N): a failed
#   check, a WRONG row or a row without "scale words" -> "delete (wrong)" / "not taken"; mean d
#   >= 1 and d > 0 in both -> "default"; mean d <= -1 -> "delete"; else "within the spread".
#   noscales, per shape: its row less the mean of lib's: what the scale loads cost at most; at
#   3 points or more "the scale loads are worth more work", else "not the scale loads".
#   nodecode, per shape: its row; at 90% of the copy or more "the decode's instructions (the
#   walk's memory pattern streams at N%)", else "the walk's memory pattern itself (N% with no
#   decode)".
#   the profile, per shape: L1/TEX throughput >= 80% of its peak: "the L1 (the scale pairs'
#   wavefronts)"; else DRAM throughput below the copy's by 10 points or more with long
#   scoreboard the largest stall: "the DRAM's rate at this walk's requests"; else issue slots
#   >= 70% busy: "issue (the decode's instructions)"; else "latency".
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
            s = s sprintf(" %s %.2f", r, v) } }
        $1 ~ /^(sm__cycles_active|smsp__inst_executed)\.(avg|max|min)$/ { v = $NF; gsub(",", "", v); m[$1] = v + 0 }
        END { if (s != "") print "  stalls above 0.2:" s
            a = m["sm__cycles_active.avg"]; i = m["smsp__inst_executed.avg"]
            if (a) printf "  SM active cycles min / avg / max: %.0f / %.0f / %.0f (max/avg %.3f)\n", m["sm__cycles_active.min"], a, m["sm__cycles_active.max"], m["sm__cycles_active.max"] / a
            if (i) printf "  instructions a scheduler min / avg / max: %.0f / %.0f / %.0f (max/avg %.3f)\n", m["smsp__inst_executed.min"], i, m["smsp__inst_executed.max"], m["smsp__inst_executed.max"] / i }' "$f"
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
# checked ARGS: `cutec run gemv --dtype nvfp4 ARGS` with the trial on the GPU, every element
# against float64; bad=1 unless verified with "scale words" in its row
checked()
{
    device_late run "$@" && return
    r=$(CUTEC_GEMV_TRIAL=words timeout 10 build/cutec run gemv --dtype nvfp4 --iters 2 "$@" 2>&1 | tail -n 1)
    echo "run words $*: $r"
    case "$r" in *"NOT the same"*) ;; *"scale words"*"verified against float64 (0 wrong"*) return 0 ;; esac
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
    echo "== the trial (words) on the GPU against float64 $(el_s)"
    bad=0
    checked --shape 1030x4160 --batch 2 --ahead 1
    checked --shape 301x4160 --batch 3 --ahead 2
    checked --shape 1030x2080 --batch 3
    echo "$bad" >"$out/bad.txt"
    echo "== the library's NVFP4 GEMV and the trial in turns, beside the copy $(el_s)"
    GEMV_TIMEOUT=${GEMV_TIMEOUT:-12}
    turns 7168x16384 lib,words,noscales,nodecode,words,lib
    turns 4096x7168 lib,words,noscales,nodecode,words,lib --batch 8
    turns 7168x2048 lib,words,words,lib --batch 4
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
    echo "== the bf16 GEMV at 7168x4096 (A's bytes and rows as NVFP4's (7168,16384,1)) $(el_s)"
    device_gemv --dtype bf16 --shape 7168x4096 | tail -n 1
    device_end
}
# pct N FORM SHAPE: the % of the copy of the N-th row of SHAPE's turns ("W": WRONG or failed,
# "N": a words row without "scale words", "": none)
pct()
{
    row=$(grep -E " $3 N=.*(%|failed)" "$out/turns-$3.txt" 2>/dev/null | sed -n "$1p")
    [ -z "$row" ] && return 0
    [ "$2" = noscales ] && case "$row" in *"scales once"*) copy_pct "$row" && return 0 ;; esac
    [ "$2" = nodecode ] && case "$row" in *"no decode"*) copy_pct "$row" && return 0 ;; esac
    case "$row" in *WRONG* | *failed*) echo W && return 0 ;; esac
    [ "$2" = words ] && case "$row" in *"scale words"*) ;; *) echo N && return 0 ;; esac
    [ "$2" = lib ] && case "$row" in *"scale words"*) echo W && return 0 ;; esac
    copy_pct "$row"
}
# trial_verdict SHAPE N: the rule of the header for the trial at SHAPE, N rows (6: noscales the
# third, nodecode the fourth; rounds: rows 2 - 1, N-1 - N)
trial_verdict()
{
    l1=$(pct 1 lib "$1") w1=$(pct 2 words "$1") w2=$(pct $(($2 - 1)) words "$1") l2=$(pct "$2" lib "$1")
    if [ "$2" = 6 ]; then
        awk -v s="$1" -v n="$(pct 3 noscales "$1")" -v nd="$(pct 4 nodecode "$1")" -v a="$l1" -v b="$l2" 'BEGIN {
            if (n == "" || a == "" || b == "" || (a b) ~ /[WN]/) print "decides: noscales at " s ": not timed"
            else { d = n - (a + b) / 2; v = d >= 3 ? "the scale loads are worth more work" : "not the scale loads"
                printf "decides: noscales at %s: %s (%s against lib %s %s: %+.2f points)\n", s, v, n, a, b, d }
            if (nd == "") { print "decides: nodecode at " s ": not timed"; exit }
            v = nd >= 90 ? "the decode'"'"'s instructions (the walk'"'"'s memory pattern streams at " nd "%)" : \
                "the walk'"'"'s memory pattern itself (" nd "% with no decode)"
            printf "decides: nodecode at %s: bound by %s\n", s, v }'
    fi
    awk -v s="$1" -v a="$l1" -v b="$w1" -v c="$w2" -v d="$l2" -v bad="$(cat "$out/bad.txt" 2>/dev/null)" 'BEGIN {
        if (bad == 1 || (a b c d) ~ /W/) { print "decides: words at " s ": delete (wrong)"; exit }
        if ((b c) ~ /N/) { print "decides: words at " s ": not taken (no scale words in its row)"; exit }
        if (a == "" || b == "" || c == "" || d == "") { print "decides: words at " s ": not timed (lib " a " " d ", words " b " " c ")"; exit }
        d1 = b - a; d2 = c - d; m = (d1 + d2) / 2
        v = m >= 1 && d1 > 0 && d2 > 0 ? "default" : m <= -1 ? "delete" : "within the spread"
        printf "decides: words at %s: %s (lib %s %s, words %s %s: %+.2f points, rounds %+.2f %+.2f)\n", s, v, a, d, b, c, m, d1, d2 }'
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 80
if nvidia-smi >/dev/null 2>&1; then
    trial_verdict 7168x16384 6
    trial_verdict 4096x7168 6
    trial_verdict 7168x2048 4
    for k in l1 l8 l4; do verdict $k; done
else
    echo "decides: nothing (no GPU here)"
fi
