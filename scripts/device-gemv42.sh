#!/bin/sh
# gemv42's mid pass (issue 17: the bf16 GEMV at 95% of the copy), <= 50 s on one H200 after the
# lead's `make all tests` (nothing is built here); log $OUT/gemv42.log, the raw ncu output
# $OUT/gemv42-NAME.txt, the bench rows $OUT/gemv42-FORM-SHAPE.txt.  A trial
# (CUTEC_GEMV_TRIAL=xblock, with rings of 4, 6 and 3), a diagnostic (CUTEC_GEMV_DIAG=nox) and
# their profile.
#
# The lead's early profile (15:48 UTC, scripts/device-prof42.sh PART=gemv, one cold launch each
# under ncu): the ring of 4 at 16384x4096 35.7 us, 22.7% occupancy (16 warps an SM), issue
# 42.9%, DRAM 79.6% of peak, long scoreboard 4.37 of 8.44 warps an issue, short scoreboard
# 0.86, MIO 0.29, L1 hit 33% (x's copies); at 8192x8192 37.3 us, short scoreboard 1.45, MIO
# 0.82; the read-only row sum of 16384x4096's bytes 33.8 us at 70.4% occupancy (48 warps),
# DRAM 84.2%, long scoreboard 17.9, barrier 2.98; the copy kernel of the same bytes moved
# (neg, 16384x4096: 268 MB) 64.4 us.  Both kernels issue about as many instructions (14.1 and
# 13.4 M) at the same rate; the ring holds a third of the sum's warps.  So the ring waits on
# its loads with few warps: what it lacks is warps (or loads a warp) in flight, and the
# shared-memory path (x's copies and reads) is the second cost.
#
# The benches (`cutec bench gemv --dtype bf16 --forms ...`, one process each, % of a D2D copy
# of A's bytes beside each row, each form checked against float64 at its first row), at
# 16384x4096, then 8192x8192 and 4096x16384:
#   lib     the ring of 4 twice
#   xblock  CUTEC_GEMV_TRIAL=xblock, the ring of 4 twice, in the next process: x's k-tile held
#           once a block (warp 0 copies it; a barrier a k-tile orders the copy before every
#           warp's reads and their reads before the refill), not once a warp: a stage 9 KB, not
#           12 (36 KB of ring: 6 blocks an SM by shared memory, 24 warps, 144 KB of A in
#           flight; 67 registers), and x's L1/L2 traffic a quarter of the ring's (an eighth of
#           A's bytes, not half).  Blocks partly past A take the register form.  Checked
#           against float64 on the GPU first (4099x4104 bf16; 1001x16392 bf16 -> f32, split K).
#           Predicted: +1 to +3 points at 16384x4096 and 8192x8192 (1.5 times the warps: 2.6
#           and 1.3 rounds; less x), 0 to +1 at 4096x16384 (0.65 rounds: the grid's 3.9 blocks
#           an SM all resident either way); the barrier's cost unknown.  At 16384x4096 also
#           xblock's rings of 6 (54 KB: 4 blocks an SM, the ring's warps each 10 KB in flight;
#           78 registers) and of 3 (27 KB: 7 blocks an SM by registers, 28 warps, 4 KB each)
#   nox     CUTEC_GEMV_DIAG=nox (16384x4096): the ring of 4 without x (no copy of x into the
#           ring, no reads of it: y = A's row sums, WRONG by design), the same blocks an SM and
#           shared memory: what x costs the ring (its L1/L2 traffic, 2 of a k-tile's 6
#           shared-memory reads, its widening and products).  Predicted 1-3 points.
# Then Nsight Compute (device-common.sh's prof: clocks left alone, caches flushed, one launch,
# the third; the columns: scripts/device-prof35.sh's header; six stall reasons, then a line a
# kernel of the named ones, L1's hit rate, eligible warps a cycle, shared-memory wavefronts) on
# xblock at 16384x4096 (xb16k), the ring without x (nox16k), the ring (ring16k, this run's
# yardstick) and xblock at 8192x8192 (xb8k), as the budget leaves room.
# What it decides (the "decides:" lines):
#   profile of ring16k / xb16k: the largest stall, and which of three it points at: "the
#     shared-memory path and barriers" where MIO throttle + short scoreboard + LG throttle +
#     barrier reach half of long scoreboard; "issue" where issue% is 60 or more; else "loads
#     in flight".
#   x at 16384x4096: the mean gain without x over the ring of 4: 3 points or more "x costs the
#     ring"; 1 or less "x is not the cost": the ring's walk is (rounds, fill and drain); else
#     both.
#   a form (xblock, its rings of 6 and 3) at a shape against the ring of 4 (two rows each,
#     A's and B's processes back to back): "leads" where both rows gain and the mean gains 0.5
#     points or more, "loses" at -0.5 or less, else "ties"; a WRONG row "WRONG".
#   xblock: "revert (WRONG)" if a check failed; "the default" where it leads at 2 or 3 shapes
#     and loses at none (the final pass confirms it in turns); "delete" where it leads at none
#     and loses at one or more; else "keep opt-in" (timed again in the final pass).
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
# bench NAME's file at SHAPE: "W" if WRONG (nox: its figure, WRONG by design), "" if none
pct()
{
    awk -v s="ring of $3 " -v t="$4" -v diag="$([ "$1" = nox ] && echo 1)" 'index($0, s) && ++k == t {
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
# decide_nox SHAPE: what x costs the ring at SHAPE (the diagnostic's rows against lib's)
decide_nox()
{
    v=$(versus nox "$1" 4)
    echo "$v" | awk -v s="$1" '$0 == "W" || NF < 5 { print "decides: x at " s ": not timed"; exit }
        { m = $5
          v = m >= 3 ? sprintf("x costs the ring %.1f points: the next form cuts x'"'"'s traffic", m) : \
              m <= 1 ? sprintf("x is not the cost (%+.1f points without it): the ring'"'"'s walk is", m) : \
              sprintf("x costs some (%+.1f points): both", m)
          print "decides: x at " s ": " v " (" $0 ")" }'
}
pass()
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing profiled or timed"
        echo "decides: profile: nothing (no GPU)"
        echo "decides: xblock: keep opt-in (no GPU)"
        return 0
    fi
    : >"$out/gemv42-rows.txt"
    have_ncu=0
    find_ncu && have_ncu=1
    echo "== xblock against float64 on the GPU (every element) $(el_s)"
    # (4099: a last block partly past A, its warps through registers; 4104: a partial k-tile;
    # 1001x16392 f16: split K, the barrier in every split)
    for c in "--shape 4099x4104" "--shape 1001x16392 --out-dtype f32"; do
        # shellcheck disable=SC2086 # (the shape and the dtype)
        CUTEC_GEMV_TRIAL=xblock device_gemv_run --dtype bf16 $c | tee -a "$out/gemv42-runs.txt"
    done
    echo "== 16384x4096: the ring of 4, xblock (and its rings of 6 and 3), the ring without x $(el_s)"
    bench lib 16384x4096 lib,lib
    GEMV_LIM=10 bench xblock 16384x4096 lib,ring6,ring3,lib,ring6,ring3 CUTEC_GEMV_TRIAL=xblock
    bench nox 16384x4096 lib,lib CUTEC_GEMV_DIAG=nox
    echo "== 8192x8192 and 4096x16384: the ring of 4 and xblock $(el_s)"
    for sh in 8192x8192 4096x16384; do
        bench lib $sh lib,lib
        bench xblock $sh lib,lib CUTEC_GEMV_TRIAL=xblock
    done
    if [ $have_ncu = 1 ]; then
        # the bytes each count reads: A (134,217,728) and x and y
        echo "== ncu: xblock, the ring without x and the ring, 16384x4096 $(el_s)"
        profile CUTEC_GEMV_TRIAL=xblock "xb16k rows 134258688 run gemv --dtype bf16 --shape 16384x4096 --iters 3"
        profile CUTEC_GEMV_DIAG=nox "nox16k rows 134258688 run gemv --dtype bf16 --shape 16384x4096 --iters 3"
        profile "ring16k rows 134258688 run gemv --dtype bf16 --shape 16384x4096 --iters 3"
        profile CUTEC_GEMV_TRIAL=xblock "xb8k rows 134250496 run gemv --dtype bf16 --shape 8192x8192 --iters 3"
        echo "== the table $(el_s)"
        prof_table
        echo "== named stalls (warps an issue) and extras"
        for n in xb16k nox16k ring16k xb8k; do named $n; done
    fi
    echo "== at $(el) s: the comparison (ncu's us, one cold launch each; the early profile: ring 35.7, sum 33.8)"
    r=$(col ring16k 2) x=$(col xb16k 2) n=$(col nox16k 2)
    awk -v r="$r" -v x="$x" -v n="$n" 'BEGIN {
        if (r != "" && x != "") printf "16384x4096: xblock %.1f us against the ring'"'"'s %.1f (%+.1f us)\n", x, r, x - r
        if (r != "" && n != "") printf "16384x4096: without x %.1f us against the ring'"'"'s %.1f (%+.1f us)\n", n, r, n - r }'
    for k in ring16k xb16k; do
        f="$out/gemv42-$k.txt"
        if [ ! -s "$f" ] || [ -z "$(col $k 2)" ]; then continue; fi
        awk -v k="$k" -v l="$(stall "$f" long_scoreboard)" -v b="$(stall "$f" barrier)" -v m="$(stall "$f" mio_throttle)" \
            -v g="$(stall "$f" lg_throttle)" -v sh="$(stall "$f" short_scoreboard)" -v i="$(col $k 11)" -v o="$(col $k 12)" \
            -v top="$(awk -v k="$k" '$1 == k { print $13, $14; exit }' "$out/gemv42-rows.txt")" 'BEGIN {
            n = (b != "-") * b + (m != "-") * m + (g != "-") * g + (sh != "-") * sh
            v = l != "-" && n >= 0.5 * l ? "the shared-memory path and barriers (MIO, short scoreboard, barrier)" : \
                i >= 60 ? "issue (instructions a byte)" : "loads in flight (long scoreboard)"
            printf "decides: profile of %s: %s (largest stall %s; long scoreboard %s, barrier+MIO+LG+short %.2f, issue %s%%, occupancy %s%%)\n",
                k, v, top, l, n, i, o }'
    done
    decide_nox 16384x4096
    decide "xblock's ring of 6" xblock 16384x4096 6
    decide "xblock's ring of 3" xblock 16384x4096 3
    leads=0 loses=0 wrong=0
    grep -q "FAILED\|NOT the same" "$out/gemv42-runs.txt" 2>/dev/null && wrong=1
    for sh in 16384x4096 8192x8192 4096x16384; do
        decide xblock xblock $sh 4
        case $verdict in leads) leads=$((leads + 1)) ;; loses) loses=$((loses + 1)) ;; WRONG) wrong=1 ;; esac
    done
    if [ $wrong = 1 ]; then
        echo "decides: xblock: revert (WRONG: a check against float64 failed)"
    elif [ $leads -ge 2 ] && [ $loses = 0 ]; then
        echo "decides: xblock: the default (led at $leads of 3 shapes, lost at none; the final pass confirms)"
    elif [ $leads = 0 ] && [ $loses -ge 1 ]; then
        echo "decides: xblock: delete (lost at $loses of 3 shapes, led at none)"
    else
        echo "decides: xblock: keep opt-in, timed again in the final pass (led at $leads, lost at $loses of 3)"
    fi
    device_end
    echo "== WRONG lines (not the diagnostic's): $(cat "$out"/gemv42-lib-*.txt "$out"/gemv42-xblock-*.txt 2>/dev/null | grep -c WRONG)"
}
pass >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 100
