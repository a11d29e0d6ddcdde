#!/bin/sh
# The mid pass of branch nb41 on one H200 (issue 16: the norms' backward at 3.45 TB/s on
# 16384x4096, 4096x32768 and 1024x262144), under 50 s of GPU work after the lead's `make all
# tests` (nothing is built here); log $OUT/nb41.log.
# The count (bench/RESULTS.md, nb41): after the row kernel, dw (and LayerNorm's db) are summed
# from the blocks' f32 partial rows by columns.c's rows_colsum, a launch an array, 8 row lanes
# of 32 threads a block whatever the partial rows: 261 partial rows at 16384x4096 (9 turns of
# 4 loads a thread, 128 blocks), 30 at 4096x32768 (1024 blocks, one turn: 4.2 us an array in
# lnb's profile), 7 at 1024x262144 (8192 blocks of one row a thread: 8 waves, 14.6 us an array
# of LayerNorm's 488); and each of the two or three launches a call starts when the one before
# has ended.  The trials (CUTEC_ROWS_TRIAL): sumlanes, the lanes sized to the partial rows
# (every row of a thread in flight at once: 32 lanes x 32 / 4 x 64 / 1 x 256 threads); sumpdl,
# the pass launched as the row kernel's dependent (PDL: let in at the row kernel's start, its
# blocks wait at griddepcontrol.wait), db's pass as dw's; rowpdl, the row kernel launched as
# the dependent of the kernel before it (its blocks set up under that kernel's tail, waiting
# before their first global access).  T2 = all three, T1 = the pass's two.
# This pass: `cutec run --backward` under T2 on the GPU against float64 (every element) at odd
# sizes that take each lanes form, then `cutec bench layernorm|rmsnorm --backward` at the three
# shapes, default and T2 in turns (round a), round b reversed at the two rows farthest from
# 3.45 TB/s (LayerNorm 4096x32768, RMSNorm 16384x4096), then LayerNorm under T1 (rowpdl's
# share, one round).  No step starts past $BUDGET (50) s.
# The rule (points of the copy, d = T2 - default): a row timed in both rounds is "ahead" with
# mean d >= 0.5 and d > 0 in both, "behind" with mean d < -0.5; a row timed once is ahead with
# d >= 0.5, behind with d < -0.5; else "within the spread".  Over the six rows: "make default"
# if none is behind and three or more are ahead; "delete" if none is ahead or one is behind by
# more than 1 point; else "keep opt-in" (the final pass times each part).  A failed check or a
# WRONG row decides "delete (wrong)".  rowpdl's share (LayerNorm, T2 - T1, one round, the
# three shapes' mean): reported, decided by the final pass.
#   BUDGET=50 ITERS=10 sh scripts/device-nb41.sh
. scripts/device-common.sh
log="$out/nb41.log"
start=$(date +%s)
budget=${BUDGET:-50}
BENCH_TIMEOUT=14
T=sumpdl,sumlanes,rowpdl
T1=sumpdl,sumlanes
# one NAME TRIAL OP [SHAPE]: `cutec bench OP --backward` (at the three shapes, or at SHAPE)
# under CUTEC_ROWS_TRIAL=TRIAL, into $out/nb41-NAME.one
one()
{
    echo "-- CUTEC_ROWS_TRIAL=$2 $3 --backward ${4:-} ($(el) s)"
    # shellcheck disable=SC2086 # (no 4th: the three shapes)
    CUTEC_ROWS_TRIAL=$2 CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$3" --backward ${4:+--shape $4} >"$out/nb41-$1.one" 2>&1
    grep -v "^# \(check\|time\|index\)" "$out/nb41-$1.one"
}
# checked TRIAL OP SHAPE: `cutec run OP --backward` on the GPU against float64 (every element)
checked()
{
    budget_left || { echo "-- skipped (time): run $*"; return 0; }
    CUTEC_ROWS_TRIAL=$1 timeout 12 build/cutec run "$2" --backward --dtype bf16 --shape "$3" >"$out/nb41.run" 2>&1
    echo "trial $1: $(tail -n 1 "$out/nb41.run")"
    grep -q "verified (0 wrong)" "$out/nb41.run" || { echo "   ^ FAILED"; return 1; }
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 (every element) $(el_s)"
        bad=
        checked $T layernorm 3001x4096 || bad=1
        checked $T layernorm 37x262136 || bad=1
        checked $T rmsnorm 301x32776 || bad=1
        echo "== the benches: round a, then round b reversed at two rows $(el_s)"
        one l0a 0 layernorm
        one l1a $T layernorm
        one r0a 0 rmsnorm
        one r1a $T rmsnorm
        one r1b $T rmsnorm 16384x4096
        one r0b 0 rmsnorm 16384x4096
        one l1b $T layernorm 4096x32768
        one l0b 0 layernorm 4096x32768
        one lt1 $T1 layernorm
        echo "== at $(el) s: % of the copy, default / T2, rounds a (b); LayerNorm under T1"
        for s in 16384x4096 4096x32768 1024x262144; do
            echo "layernorm $s: T1 $(rows_pct "$out/nb41-lt1.one" layernorm bwd $s)," \
                "T2 - T1 $(diff2 "$(rows_pct "$out/nb41-l1a.one" layernorm bwd $s)" "$(rows_pct "$out/nb41-lt1.one" layernorm bwd $s)")"
        done
        rows=""
        for op in layernorm rmsnorm; do
            c=$(echo $op | cut -c1)
            for s in 16384x4096 4096x32768 1024x262144; do
                a0=$(rows_pct "$out/nb41-${c}0a.one" $op bwd $s) a1=$(rows_pct "$out/nb41-${c}1a.one" $op bwd $s)
                b0=$(rows_pct "$out/nb41-${c}0b.one" $op bwd $s) b1=$(rows_pct "$out/nb41-${c}1b.one" $op bwd $s)
                echo "$op $s: default $a0 ($b0), T2 $a1 ($b1)"
                rows="$rows$op $s x$(diff2 "$a1" "$a0") x$(diff2 "$b1" "$b0")
"
            done
        done
        # (each d after an x: "x" alone where a round did not time the row)
        printf '%s' "$rows" | awk -v bad="${bad:-}" '
            { a = substr($3, 2); b = substr($4, 2)
              if (a == "W" || b == "W") { wrong = 1; printf "decides: %s %s: WRONG\n", $1, $2; next }
              if (a == "" && b == "") { printf "decides: %s %s: not timed\n", $1, $2; next }
              if (a != "" && b != "") { m = (a + b) / 2; both = a > 0 && b > 0; what = sprintf("rounds %+.2f %+.2f", a, b) }
              else { m = (a b) + 0; both = 1; what = "one round" }
              v = m >= 0.5 && both ? "ahead" : m < -0.5 ? "behind" : "within the spread"
              printf "decides: %s %s: %s (%+.2f points, %s)\n", $1, $2, v, m, what
              n++; if (v == "ahead") yes++; if (v == "behind") no++; if (m < -1) far = 1 }
            END { if (bad != "" || wrong) { print "decides: sumpdl,sumlanes,rowpdl: delete (wrong)"; exit }
                  if (!n) { print "decides: sumpdl,sumlanes,rowpdl: keep opt-in (not timed)"; exit }
                  v = !no && yes >= 3 ? "make default" : (!yes || far) ? "delete" : "keep opt-in"
                  printf "decides: sumpdl,sumlanes,rowpdl: %s (%d of %d rows ahead, %d behind)\n", v, yes + 0, n, no + 0 }'
    else
        echo "== no GPU here: nothing timed"
        echo "decides: sumpdl,sumlanes,rowpdl: keep opt-in (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 80
