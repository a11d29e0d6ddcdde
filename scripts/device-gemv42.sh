#!/bin/sh
# gemv42's final pass (issue 17: the bf16 GEMV at 95% of the copy), <= 50 s on one H200 after the
# lead's `make all tests` (nothing is built here); log $OUT/gemv42.log, the bench rows
# $OUT/gemv42-FORM-SHAPE.txt, the raw ncu output $OUT/gemv42-NAME.txt.  The library's kernels are
# main's (this branch adds only diagnostics): where the ring of 4 loses its points.
#
# What is known (the lead's early profile and this branch's mid pass, H200, 16:04 UTC): the ring
# of 4 at 16384x4096 waits on its loads with 16 warps an SM (22.7% occupancy, long scoreboard
# 4.37 of 8.44 warps an issue, issue 42.9%), where the read-only row sum of the same bytes runs
# 48 (70.4%) at 104% of the copy; x is not the cost (the ring without x, CUTEC_GEMV_DIAG=nox:
# 92.0 / 91.8 against 91.3 / 91.2); x once a block with a barrier a k-tile (24 warps) lost
# (-1.3 / -8.5 / +0.2 points at 16384x4096 / 8192x8192 / 4096x16384) and was deleted.
# By the count the ring loses a loaded round trip a round of blocks (the shapes' 3.88 / 1.94 /
# 0.97 rounds: 16384x4096 - 4096x16384 = 2.0 us over 2.9 rounds, 8192x8192 - 4096x16384 1.2 us
# over 0.97).  This pass splits the ring's time in two and tests the rounds:
#   copyonly  CUTEC_GEMV_DIAG=copyonly: the ring's copies of A and x and its waits alone, no
#             stage read (every element 1: WRONG by design), the same blocks, warps and bytes in
#             flight.  Predicted: within a point of the ring (its walk, not its reads and
#             products, sets the time; issue is 43%).  If it gains 3 points or more, the reads
#             and products between a k-tile's wait and the next copies are the cost.
#   nox       CUTEC_GEMV_DIAG=nox again at 16384x4096 (the mid pass's +0.65).
#   ring6, ring8 (`--forms lib,ring6,ring8,lib,ring6,ring8`, one process, each form checked
#             against float64 first): the library's ring of 6 and 8 stages at one vector, never
#             timed (3 and 2 blocks an SM: 12 warps with 10 KB in flight, 8 with 14 KB; 5.2 and
#             7.8 rounds at 16384x4096, 2.6 and 3.9 at 8192x8192, 1.3 and 1.9 at 4096x16384).
#             The rounds' count predicts both slower everywhere (ring6 -1 to -3 points at
#             16384x4096), most at 4096x16384 (one round becomes 1.3 and 1.9).
# The order (each step where the budget leaves room): 16384x4096 (lib's forms, copyonly, nox),
# 8192x8192 (lib's forms, copyonly), torch.mv at the three shapes (bench/torch_gemv.py),
# 4096x16384's forms, the read-only row sum of 16384x4096 (`cutec bench sum`, the yardstick:
# 104% in session 41), then ncu on copyonly and the ring at 16384x4096 (device-common.sh's prof: clocks left alone,
# caches flushed, one cold launch; the columns: scripts/device-prof35.sh's header).
# What it decides (the "decides:" lines): nothing in the library changes (no form on trial);
#   copyonly (16384x4096, 8192x8192) / nox (16384x4096): the mean gain over the ring of 4 (two rows each): 3 points or
#     more "costs the ring N points", 1 or less "not the cost", else "some";
#   ring6 / ring8 at a shape against the ring of 4 (two rows each in one process): "leads" where
#     both rows gain and the mean gains 0.5 points or more, "loses" at -0.5 or less, else
#     "ties"; a WRONG row "WRONG" (a depth that leads is the next engineer's default by shape);
#   the ring of 4 against issue 17's marks (95% of the copy; 1.35x torch.mv's GB/s).
#   BUDGET_S=50 sh scripts/device-gemv42.sh
. scripts/device-common.sh
log="$out/gemv42.log"
start=$(date +%s) budget=${BUDGET_S:-50}
prof_tag=gemv42 prof_stalls=6 PROF_TIMEOUT=${PROF_TIMEOUT:-12}
# (regex: a name this ncu lacks drops out instead of failing the run)
prof_extra='regex:^(l1tex__t_sector_hit_rate\.pct|smsp__warps_eligible\.avg\.per_cycle_active|l1tex__data_pipe_lsu_wavefronts_mem_shared\.sum)$'
# room S: true while S more seconds fit in the budget
room() { [ $(($(date +%s) - start + $1)) -le "$budget" ]; }
# stall FILE REASON: the warps an issue ncu found stalled on REASON in FILE ("-" if none)
stall() { v=$(prof_metric "$1" "smsp__average_warps_issue_stalled_$2_per_issue_active.ratio") && echo "${v:--}"; }
# named NAME: the line of named stalls and extras of kernel NAME's raw output
named()
{
    f="$out/gemv42-$1.txt"
    [ -s "$f" ] || return 0
    printf "%-8s long_sb %s barrier %s mio %s lg %s short_sb %s wait %s no_inst %s; L1 hit %s%%, eligible %s a cycle, smem wavefronts %s\n" \
        "$1" "$(stall "$f" long_scoreboard)" "$(stall "$f" barrier)" "$(stall "$f" mio_throttle)" \
        "$(stall "$f" lg_throttle)" "$(stall "$f" short_scoreboard)" "$(stall "$f" wait)" \
        "$(stall "$f" no_instruction)" "$(prof_metric "$f" l1tex__t_sector_hit_rate.pct)" \
        "$(prof_metric "$f" smsp__warps_eligible.avg.per_cycle_active)" \
        "$(prof_metric "$f" l1tex__data_pipe_lsu_wavefronts_mem_shared.sum)"
}
# col NAME N: column N of kernel NAME's row in the table ("" if none)
col() { awk -v n="$1" -v c="$2" '$1 == n { print $c; exit }' "$out/gemv42-rows.txt" 2>/dev/null; }
# profile [ENV=VALUE] "NAME KERNEL NEED ARGS..."...: prof of each (under ENV), where
# $PROF_TIMEOUT s fit the budget
profile()
{
    e=
    case $1 in *=*) e=$1 && shift ;; esac
    for k in "$@"; do
        # shellcheck disable=SC2086 # (the name, kernel, bytes and cutec's arguments)
        if room "$PROF_TIMEOUT"; then (if [ -n "$e" ]; then export "${e?}"; fi; prof $k); else
            echo "-- skipped (time): ncu ${k%% *}"; fi
    done
}
# bench NAME SHAPE FORMS [ENV=VALUE]: `cutec bench gemv --dtype bf16 --shape SHAPE --forms FORMS`
# (each form checked against float64 at its first row) under ENV in its own process, its rows
# into $out/gemv42-NAME-SHAPE.txt, under a limit of $GEMV_LIM (8) s; skipped (an empty file)
# where that does not fit the budget
bench()
{
    f="$out/gemv42-$1-$2.txt"
    : >"$f"
    room "${GEMV_LIM:-8}" || { echo "-- skipped (time): $1 at $2"; return; }
    echo "-- $(el_s) $1: ${4:-} bench gemv bf16 $2 --forms $3"
    (if [ -n "${4:-}" ]; then export "${4?}"; fi
        GEMV_TIMEOUT=${GEMV_LIM:-8} device_gemv --dtype bf16 --shape "$2" --forms "$3") | tee "$f" | grep -E "^rows|rror"
}
# pct NAME SHAPE STAGES TURN: the % of the copy of the TURN-th row of the ring of STAGES in
# bench NAME's file at SHAPE: "W" if WRONG (nox, copyonly: their figure, WRONG by design), "" if
# none
pct()
{
    awk -v s="ring of $3 " -v t="$4" -v diag="$(case $1 in nox | copyonly) echo 1 ;; esac)" 'index($0, s) && ++k == t {
        p = $NF; if (p !~ /%$/) p = $(NF - 1); sub("%", "", p); print (/WRONG/ && !diag ? "W" : p) }' \
        "$out/gemv42-$1-$2.txt" 2>/dev/null
}
# versus NAME SHAPE STAGES: "B1 B2 D1 D2 M" for NAME's two rows (ring of STAGES) against lib's two
# rings of 4 at SHAPE (D: B - A a round, M: their mean); "W" if either has a WRONG row, "" if a
# row is missing
versus()
{
    awk -v a1="$(pct lib "$2" 4 1)" -v a2="$(pct lib "$2" 4 2)" -v b1="$(pct "$1" "$2" "$3" 1)" \
        -v b2="$(pct "$1" "$2" "$3" 2)" 'BEGIN {
        if ((a1 a2 b1 b2) ~ /W/) { print "W"; exit }
        if (a1 == "" || a2 == "" || b1 == "" || b2 == "") exit
        printf "%s %s %.2f %.2f %.2f (ring of 4: %s %s)\n", b1, b2, b1 - a1, b2 - a2, (b1 - a1 + b2 - a2) / 2, a1, a2 }'
}
# decide LABEL NAME SHAPE STAGES: the rule of a form (bench NAME's ring of STAGES) against the
# ring of 4 (header), a line; the verdict word in $verdict
decide()
{
    v=$(versus "$2" "$3" "$4")
    verdict=$(echo "$v" | awk '$0 == "W" { print "WRONG"; exit } NF < 5 { print "untimed"; exit }
        { print ($3 > 0 && $4 > 0 && $5 >= 0.5 ? "leads" : $5 <= -0.5 ? "loses" : "ties") }')
    echo "decides: $1 at $3: $verdict (${v:-no rows})"
}
# decide_diag NAME SHAPE: what the work diagnostic NAME leaves out costs the ring at SHAPE (its
# rows against lib's), a line
decide_diag()
{
    v=$(versus "$1" "$2" 4)
    echo "$v" | awk -v n="$1" -v s="$2" '$0 == "W" || NF < 5 { print "decides: " n " at " s ": not timed"; exit }
        { m = $5
          v = m >= 3 ? sprintf("costs the ring %.1f points", m) : m <= 1 ? sprintf("is not the cost (%+.1f points)", m) : \
              sprintf("costs some (%+.1f points)", m)
          print "decides: " n " at " s ": what it leaves out " v " (" $0 ")" }'
}
# marks SHAPE: the ring of 4's mean % of the copy at SHAPE (lib's two rows) and its GB/s against
# torch.mv's, against issue 17's 95% and 1.35x, a line
marks()
{
    g=$(awk '/ring of 4 / { s += $(NF - 2); n++ } END { if (n) printf "%.0f", s / n }' "$out/gemv42-lib-$1.txt" 2>/dev/null)
    t=$(awk -v s="$1" '$0 ~ "torch.mv" && $0 ~ " " s ":" { for (i = 1; i <= NF; i++) if ($(i + 1) == "GB/s") { print $i; exit } }' \
        "$out/gemv42-torch.txt" 2>/dev/null)
    awk -v s="$1" -v a="$(pct lib "$1" 4 1)" -v b="$(pct lib "$1" 4 2)" -v g="$g" -v t="$t" 'BEGIN {
        if (a == "" || b == "" || (a b) ~ /W/) { print "decides: marks at " s ": not timed"; exit }
        m = (a + b) / 2; r = (t != "" && g != "" && t > 0) ? g / t : 0
        c = (m >= 95 ? "meets" : "short of"); x = (r ? sprintf("%.2fx", r) : "-")
        w = (t == "" ? "torch not timed" : (r >= 1.35 ? "meets 1.35x" : "short of 1.35x"))
        printf "decides: marks at %s: the ring of 4 %.2f%% of the copy (%s 95), %s GB/s = %s torch.mv (%s)\n", s, m, c, g, x, w }'
}
pass()
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed or profiled"
        echo "decides: nothing (no GPU)"
        return 0
    fi
    : >"$out/gemv42-rows.txt"
    have_ncu=0
    find_ncu && have_ncu=1
    for sh in 16384x4096 8192x8192; do
        echo "== $sh: the ring of 4 (and of 6 and 8), its copies alone, without x $(el_s)"
        GEMV_LIM=10 bench lib $sh lib,ring6,ring8,lib,ring6,ring8
        bench copyonly $sh lib,lib CUTEC_GEMV_DIAG=copyonly
        [ $sh = 16384x4096 ] && bench nox $sh lib,lib CUTEC_GEMV_DIAG=nox
    done
    echo "== torch.mv (bf16) $(el_s)"
    : >"$out/gemv42-torch.txt"
    if room 12; then timeout 12 python3 bench/torch_gemv.py mv-bf16 2>&1 | grep -E "torch.mv|rror" | tee "$out/gemv42-torch.txt"; else
        echo "-- skipped (time): torch.mv"; fi
    echo "== 4096x16384: the ring of 4 (and of 6 and 8) $(el_s)"
    GEMV_LIM=10 bench lib 4096x16384 lib,ring6,ring8,lib,ring6,ring8
    echo "== the read-only row sum of 16384x4096 (the yardstick) $(el_s)"
    if room 8; then CUTEC_TORCH_ROWS=/dev/null timeout 8 build/cutec bench sum --dtype bf16 --shape 16384x4096 --iters "$iters" 2>&1 |
        grep -v "^# \(check\|time\|index\)" | tee "$out/gemv42-sum.txt"; else echo "-- skipped (time): sum"; fi
    if [ $have_ncu = 1 ]; then
        # the bytes each count reads: A (134,217,728) and x and y
        echo "== ncu: the ring's copies alone and the ring, 16384x4096 $(el_s)"
        profile CUTEC_GEMV_DIAG=copyonly "copy16k rows 134258688 run gemv --dtype bf16 --shape 16384x4096 --iters 3"
        profile "ring16k rows 134258688 run gemv --dtype bf16 --shape 16384x4096 --iters 3"
        echo "== the table $(el_s)"
        prof_table
        echo "== named stalls (warps an issue) and extras"
        for n in copy16k ring16k; do named $n; done
    fi
    echo "== at $(el) s: what decides"
    decide_diag copyonly 16384x4096
    decide_diag nox 16384x4096
    decide_diag copyonly 8192x8192
    for sh in 16384x4096 8192x8192 4096x16384; do
        decide ring6 lib $sh 6
        decide ring8 lib $sh 8
        marks $sh
    done
    device_end
    echo "== WRONG lines (not the diagnostics'): $(cat "$out"/gemv42-lib-*.txt 2>/dev/null | grep -c WRONG)"
}
pass >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 100
