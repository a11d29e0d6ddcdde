#!/bin/sh
# gemv42's mid pass (issue 17: the bf16 GEMV at 95% of the copy), <= 50 s on one H200 after the
# lead's `make all tests` (nothing is built here); log $OUT/gemv42.log, the raw ncu output
# $OUT/gemv42-NAME.txt.  The library's kernels are main's: a profile, a diagnostic and a probe.
#
# The first profile of the bf16 ring beside the read-only row sum of the same bytes.  Every
# explanation of the ring's 4-9 points so far is a count (gemv39, gemv41: a loaded round trip
# a round of blocks, each warp's first k-tile waited for and its last three drained, the warps
# of a round starting and ending together); prof35 (session 35) profiled the ring at
# 16384x4096 alone, cold, without the sum beside it: DRAM 78.2% of peak against the copy
# kernel's 80.6, long scoreboard 4.47 of 8.73 warps an issue, occupancy 22.9%.
# Nsight Compute (device-common.sh's prof: clocks left alone, caches flushed, one launch, the
# third) on
#   ring16k   the library's bf16 GEMV (ring of 4) 16384x4096     rows_kernel_N (2,048 blocks)
#   sum16k    `cutec run sum` bf16 16384x4096 (the row sum)      rows_kernel_N
#   copy      `cutec run elementwise --op neg` bf16 8192x4096: 67 MB read and 67 written, the
#             134 MB a D2D copy of "the same bytes" moves (ncu does not profile cuMemcpyDtoD):
#             its duration is the one to hold the GEMV's against
#   ring8k    the ring at 8192x8192 (1,024 blocks)    } last, after the benches below, where
#   sum8k     the row sum at 8192x8192                } the budget leaves room
# and prints prof35's table (the columns: scripts/device-prof35.sh's header) with six stall
# reasons, then a line a kernel of the named stalls (warps an issue: long scoreboard, barrier,
# MIO throttle, LG throttle, short scoreboard, wait, no instruction), L1's hit rate (x's
# cp.async .ca), eligible warps a cycle and shared-memory wavefronts, and the comparison:
# ring - sum and ring / copy in us.
# Then at 16384x4096 and 8192x8192 (% of a D2D copy of A's bytes beside each row):
#   `cutec bench gemv --forms lib,ring6,ring8,lib,ring6,ring8` (one process, each form checked
#     against float64 first): rings of 6 and 8 stages (3 and 2 blocks an SM: 10 and 14 KB of A
#     a warp in flight, 5.2 and 7.8 rounds at 16384x4096 where the ring of 4 has 3.9), never
#     timed at one vector.  The count (a round trip a round) predicts both slower (ring6 -1 to
#     -3 points at 16384x4096, less at 8192x8192); a gain says the rounds are not the cost.
#   the same with CUTEC_GEMV_DIAG=nox, `--forms lib,lib` in the next process: the ring of 4
#     without x (no copy of x into the ring, no reads of it: y = A's row sums, WRONG by design),
#     the same blocks an SM and shared memory.  What x costs the ring: its L1/L2 traffic (half
#     A's bytes, each warp its own copy), 2 of a k-tile's 6 shared-memory reads, its widening
#     and the products.  Predicted: 1-3 points at 16384x4096 (x's loads hit L1 and L2; the
#     round count is the rest), up to the row sum's ~104 if x's path is the cost.
# What it decides (the "decides:" lines):
#   profile: the ring's largest stall named, and which of three it points at: "the ring's
#     shared-memory path" where MIO throttle + short scoreboard + LG throttle + barrier reach
#     half of long scoreboard; "issue" where issue% is 60 or more; else "loads in flight"
#     (long scoreboard: latency, the rounds' ends), with the ring's us over the sum's and the
#     copy's.
#   x at a shape: the mean gain without x over the ring of 4 (two rows each): 3 points or more
#     "x costs the ring": the final pass's form cuts x's traffic (x copied once a block, not a
#     warp); 1 or less "x is not the cost": the ring's walk is (rounds, fill and drain); else both.
#   ringN at a shape: "leads" where both rounds gain on lib and the mean gains 0.5 points or more
#     (the final pass then times it as the default at that shape), "loses" at -0.5 or less, else
#     "ties"; a WRONG row decides "WRONG" (nothing of it kept).
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
# profile "NAME KERNEL NEED ARGS..."...: prof of each, where $PROF_TIMEOUT s fit the budget
profile()
{
    for k in "$@"; do
        # shellcheck disable=SC2086 # (the name, kernel, bytes and cutec's arguments)
        if room "$PROF_TIMEOUT"; then prof $k; else echo "-- skipped (time): ncu ${k%% *}"; fi
    done
}
# forms SHAPE: the ring-depth probe's process at SHAPE, its rows into $out/gemv42-forms-SHAPE.txt
forms()
{
    f="$out/gemv42-forms-$1.txt"
    : >"$f"
    room 10 || { echo "-- skipped (time): forms at $1"; return; }
    echo "-- $(el_s) bench gemv bf16 $1 --forms lib,ring6,ring8,lib,ring6,ring8"
    GEMV_TIMEOUT=10 device_gemv --dtype bf16 --shape "$1" --forms lib,ring6,ring8,lib,ring6,ring8 | tee "$f" |
        grep -E "^rows|WRONG|rror"
}
# nox SHAPE: the ring of 4 without x (CUTEC_GEMV_DIAG=nox: wrong by design, each row WRONG),
# twice, in its own process, into $out/gemv42-nox-SHAPE.txt
nox()
{
    f="$out/gemv42-nox-$1.txt"
    : >"$f"
    room 6 || { echo "-- skipped (time): nox at $1"; return; }
    echo "-- $(el_s) CUTEC_GEMV_DIAG=nox bench gemv bf16 $1 --forms lib,lib (no x: WRONG by design)"
    CUTEC_GEMV_DIAG=nox GEMV_TIMEOUT=6 device_gemv --dtype bf16 --shape "$1" --forms lib,lib | tee "$f" |
        grep -E "^rows|rror"
}
# pct SHAPE STAGES TURN: the % of the copy of the TURN-th row of the ring of STAGES at SHAPE ("W" if
# WRONG, "" if none)
pct()
{
    awk -v s="ring of $2 " -v t="$3" 'index($0, s) && ++k == t { p = $NF; sub("%", "", p); print (/WRONG/ ? "W" : p) }' \
        "$out/gemv42-forms-$1.txt" 2>/dev/null
}
# nox_pct SHAPE TURN: the % of the copy of the ring without x's TURN-th row ("" if none)
nox_pct()
{
    awk -v t="$2" '/ring of 4 / && ++k == t { p = $(NF - 1); if (p !~ /%$/) p = $NF; sub("%", "", p); print p }' \
        "$out/gemv42-nox-$1.txt" 2>/dev/null
}
# decide_nox SHAPE: what x costs the ring at SHAPE (the diagnostic's rows against the ring of 4's)
decide_nox()
{
    awk -v s="$1" -v a1="$(pct "$1" 4 1)" -v a2="$(pct "$1" 4 2)" -v b1="$(nox_pct "$1" 1)" -v b2="$(nox_pct "$1" 2)" 'BEGIN {
        if (a1 == "" || a2 == "" || b1 == "" || b2 == "" || (a1 a2) ~ /W/) { print "decides: x at " s ": not timed"; exit }
        m = (b1 + b2 - a1 - a2) / 2
        v = m >= 3 ? "x costs the ring " sprintf("%.1f", m) " points: the next form cuts x'"'"'s traffic (x once a block)" : \
            m <= 1 ? "x is not the cost (" sprintf("%+.1f", m) " points without it): the ring'"'"'s walk is" : \
            "x costs some (" sprintf("%+.1f", m) " points): both"
        printf "decides: x at %s: %s (ring of 4 %s / %s, without x %s / %s)\n", s, v, a1, a2, b1, b2 }'
}
# decide_ring SHAPE STAGES: the probe's rule for the ring of STAGES at SHAPE against the ring of 4
decide_ring()
{
    a1=$(pct "$1" 4 1) a2=$(pct "$1" 4 2) b1=$(pct "$1" "$2" 1) b2=$(pct "$1" "$2" 2)
    awk -v s="$1" -v n="$2" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" 'BEGIN {
        if ((a1 b1 a2 b2) ~ /W/) { print "decides: ring" n " at " s ": WRONG"; exit }
        if (a1 == "" || a2 == "" || b1 == "" || b2 == "") { print "decides: ring" n " at " s ": not timed"; exit }
        d1 = b1 - a1; d2 = b2 - a2; m = (d1 + d2) / 2
        v = d1 > 0 && d2 > 0 && m >= 0.5 ? "leads" : m <= -0.5 ? "loses" : "ties"
        printf "decides: ring%s at %s: %s (%+.2f points: %s -> %s, %s -> %s)\n", n, s, v, m, a1, b1, a2, b2 }'
}
pass()
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing profiled or timed"
        echo "decides: profile: nothing (no GPU)"
        return 0
    fi
    : >"$out/gemv42-rows.txt"
    have_ncu=0
    find_ncu && have_ncu=1
    # the bytes each count reads: A (134,217,728) and x and y (the GEMV), A (the sum), the
    # copy's read half
    [ $have_ncu = 1 ] && echo "== ncu, one launch each (cold L2) $(el_s)" &&
        profile "ring16k rows 134258688 run gemv --dtype bf16 --shape 16384x4096 --iters 3" \
            "sum16k rows 134217728 run sum --dtype bf16 --shape 16384x4096 --iters 3" \
            "copy ew 67108864 run elementwise --op neg --dtype bf16 --shape 8192x4096 --iters 3"
    echo "== the ring's depth (rings of 6 and 8 never timed at one vector), and the ring without x $(el_s)"
    for sh in 16384x4096 8192x8192; do
        forms $sh
        nox $sh
    done
    if [ $have_ncu = 1 ]; then
        profile "ring8k rows 134250496 run gemv --dtype bf16 --shape 8192x8192 --iters 3" \
            "sum8k rows 134217728 run sum --dtype bf16 --shape 8192x8192 --iters 3"
        echo "== the table $(el_s)"
        prof_table
        echo "== named stalls (warps an issue) and extras"
        for n in ring16k sum16k copy ring8k sum8k; do named $n; done
    fi
    echo "== at $(el) s: the comparison (ncu's us, one cold launch each)"
    r=$(col ring16k 2) s=$(col sum16k 2) c=$(col copy 2) r8=$(col ring8k 2) s8=$(col sum8k 2)
    awk -v r="$r" -v s="$s" -v c="$c" -v r8="$r8" -v s8="$s8" 'BEGIN {
        if (r != "" && s != "") printf "16384x4096: ring %.1f us, sum %.1f (ring - sum %+.1f us, sum / ring %.1f%%)\n", r, s, r - s, 100 * s / r
        if (r != "" && c != "") printf "16384x4096: the copy of 134 MB %.1f us: ring at %.1f%% of the copy by ncu\n", c, 100 * c / r
        if (r8 != "" && s8 != "") printf "8192x8192:  ring %.1f us, sum %.1f (ring - sum %+.1f us)\n", r8, s8, r8 - s8
        if (r8 != "" && c != "") printf "8192x8192:  ring at %.1f%% of the copy by ncu\n", 100 * c / r8 }'
    f="$out/gemv42-ring16k.txt"
    if [ -s "$f" ] && [ -n "$r" ]; then
        awk -v l="$(stall "$f" long_scoreboard)" -v b="$(stall "$f" barrier)" -v m="$(stall "$f" mio_throttle)" \
            -v g="$(stall "$f" lg_throttle)" -v sh="$(stall "$f" short_scoreboard)" -v i="$(col ring16k 11)" \
            -v top="$(awk '$1 == "ring16k" { print $13, $14; exit }' "$out/gemv42-rows.txt")" 'BEGIN {
            n = (b != "-") * b + (m != "-") * m + (g != "-") * g + (sh != "-") * sh
            v = l != "-" && n >= 0.5 * l ? "the ring'"'"'s shared-memory path (MIO/LSU: x through the ring, the LDS)" : \
                i >= 60 ? "issue (instructions a byte)" : "loads in flight (long scoreboard: latency, the rounds'"'"' ends)"
            printf "decides: profile: %s (the ring at 16384x4096: largest stall %s; long scoreboard %s, barrier+MIO+LG+short %.2f, issue %s%%)\n",
                v, top, l, n, i }'
    else
        echo "decides: profile: nothing (no ncu row for the ring)"
    fi
    for sh in 16384x4096 8192x8192; do
        decide_nox $sh
        decide_ring $sh 6
        decide_ring $sh 8
    done
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$out"/gemv42-forms-*.txt 2>/dev/null | awk -F: '{ s += $NF } END { print s + 0 }')"
}
pass >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 90
