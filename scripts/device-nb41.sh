#!/bin/sh
# The mid pass of branch nb41 on one H200 (issue 16: the norms' backward at 3.45 TB/s on
# 16384x4096, 4096x32768 and 1024x262144), under 50 s of GPU work after the lead's `make all
# tests` (nothing is built here); log $OUT/nb41.log.
# The count (bench/RESULTS.md, nb41): after the row kernel, dw (and LayerNorm's db) are summed
# from the blocks' f32 partial rows by columns.c's rows_colsum, a launch an array, 8 row lanes
# of 32 threads a block whatever the partial rows: 261 partial rows at 16384x4096 (9 turns of
# 4 loads a thread, 128 blocks), 30 at 4096x32768 (1024 blocks, one turn: 4.2 us an array in
# lnb's profile), 7 at 1024x262144 (8192 blocks of one row a thread: 8 waves, 14.6 us an array
# of LayerNorm's 488).  The trial "sumpdl,sumlanes" (CUTEC_ROWS_TRIAL): the lanes sized to the
# partial rows (every row of a thread in flight at once: 32 lanes x 32 / 4 x 64 / 1 x 256),
# and the pass launched as the row kernel's dependent (PDL: launched in the row kernel's tail,
# waiting at griddepcontrol.wait), db's pass as dw's.
# This pass: `cutec run --backward` under the trial on the GPU against float64 (every element)
# at odd sizes that take each lanes form, then `cutec bench layernorm|rmsnorm --backward` at
# the three shapes, default and trial in turns, two rounds (the second reversed).  No step
# starts past $BUDGET (50) s.
# The rule (points of the copy, d = trial - default, each (op, shape)'s two rounds): mean d >=
# 0.5 and d > 0 in both -> "make default"; mean d < -0.5 -> "delete"; else "within the
# spread".  Over the six: "make default" if no row deletes and at least three make default;
# "delete" if no row makes default or any row deletes by more than 1; else keep opt-in for the
# final pass.  A failed check or a WRONG row decides "delete (wrong)".
#   BUDGET=50 ITERS=10 sh scripts/device-nb41.sh
. scripts/device-common.sh
log="$out/nb41.log"
start=$(date +%s)
budget=${BUDGET:-50}
BENCH_TIMEOUT=14
T=sumpdl,sumlanes
# one NAME TRIAL OP: `cutec bench OP --backward` at the three shapes under CUTEC_ROWS_TRIAL=TRIAL
one()
{
    echo "-- CUTEC_ROWS_TRIAL=$2 $3 --backward ($(el) s)"
    CUTEC_ROWS_TRIAL=$2 CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$3" --backward >"$out/nb41-$1.one" 2>&1
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
        checked $T layernorm 301x32776 || bad=1
        checked $T layernorm 37x262136 || bad=1
        checked $T rmsnorm 1001x4104 || bad=1
        echo "== the benches, two rounds, the second reversed $(el_s)"
        one l0a 0 layernorm
        one l1a $T layernorm
        one r0a 0 rmsnorm
        one r1a $T rmsnorm
        one r1b $T rmsnorm
        one r0b 0 rmsnorm
        one l1b $T layernorm
        one l0b 0 layernorm
        echo "== at $(el) s: % of the copy, default / trial, rounds a b"
        rows=""
        for op in layernorm rmsnorm; do
            c=$(echo $op | cut -c1)
            for s in 16384x4096 4096x32768 1024x262144; do
                a0=$(rows_pct "$out/nb41-${c}0a.one" $op bwd $s) a1=$(rows_pct "$out/nb41-${c}1a.one" $op bwd $s)
                b0=$(rows_pct "$out/nb41-${c}0b.one" $op bwd $s) b1=$(rows_pct "$out/nb41-${c}1b.one" $op bwd $s)
                echo "$op $s: default $a0 / $b0, trial $a1 / $b1"
                rows="$rows$op $s $(diff2 "$a1" "$a0") $(diff2 "$b1" "$b0")
"
            done
        done
        printf '%s' "$rows" | awk -v bad="${bad:-}" '
            NF < 4 || $3 == "W" || $4 == "W" { if (NF >= 4 && ($3 == "W" || $4 == "W")) wrong = 1
                                               if (NF < 4) printf "decides: %s %s: not timed\n", $1, $2; next }
            { m = ($3 + $4) / 2
              v = m >= 0.5 && $3 > 0 && $4 > 0 ? "make default" : m < -0.5 ? "delete" : "within the spread"
              printf "decides: %s %s: %s (%+.2f points, rounds %+.2f %+.2f)\n", $1, $2, v, m, $3, $4
              n++; if (v == "make default") yes++; if (v == "delete") no++; if (m < -1) far = 1 }
            END { if (bad != "" || wrong) { print "decides: sumpdl,sumlanes: delete (wrong)"; exit }
                  if (!n) { print "decides: sumpdl,sumlanes: keep opt-in (not timed)"; exit }
                  v = !no && yes >= 3 ? "make default" : (!yes || far) ? "delete" : "keep opt-in"
                  printf "decides: sumpdl,sumlanes: %s (%d of %d rows ahead by 0.5 in both rounds, %d behind)\n", v, yes, n, no }'
    else
        echo "== no GPU here: nothing timed"
        echo "decides: sumpdl,sumlanes: keep opt-in (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 80
