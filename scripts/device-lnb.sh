#!/bin/sh
# The pass of branch lnb on a GPU machine (issue 16: the norms' backward, LayerNorm's gap to
# RMSNorm at 4096x32768; both at 1024x262144), under 80 s on one H200 after `make all tests`.
# The count behind it (sm_90a SASS, bf16): both norms' backward at 4096x32768 run the same
# plan, and their times followed their row loops' instruction counts: LayerNorm 793 a turn
# against RMSNorm's 605 (1.31x; 298 against 230 us on the H200, 1.30x); both issue at ~60% of
# the SMs' peak rate (ncu: 6.5 cycles between a warp's instructions, 15 warps an SM, 42% of
# the cycles with no warp eligible); the bytes are not the bound.  lnb's forms cut the
# instructions (docs/reductions.md), row loop LayerNorm / RMSNorm at 4096 / 32768 / 262144:
#   lnb0 (CUTEC_ROWS_SCHEDULE=lnb0, the forms before lnb): 716 / 793 / 1298; 585 / 605 / 1194
#   default since the early mid pass (lean: dx by two FMAs about the mean, dw/db without a
#     select, 1/n hoisted; idx32: 32-bit index arithmetic within 2^15; wf32: the staged weight
#     widened once into an f32 copy): 530 / 583 / 1162; 448 / 473 / 1084.  H200, 18:50 UTC,
#     LayerNorm 4096x32768: 64.7 -> 72.5 (lean) -> 79.0% of the copy (lean,idx32,wf32).
# Opt-in (CUTEC_ROWS_TRIAL):
#   nopred: a 1024-thread part's staged chunks read without a predicate (buffers zeroed once,
#     no write pass for a row past the matrix): 262144 1162 -> 1037 / 1084 -> 963 (at 32768,
#     where it no longer applies, it cost 3.7 points).  H200: lean,nopred at 1024x262144
#     LayerNorm 56.2 -> 63.5, RMSNorm 67.5 -> 72.8.
#   wstage: (with nopred) 262144's weight part staged beside the three 64 KB buffers (225 of
#     227 KB), not read from L2 in each pass: 1037 -> 996 / 963 -> 912.
#   colvec: dw's and db's partial rows summed four columns a thread (the same bits); one
#     column a thread took 4.3 us an array at 4096x32768 (ncu), 14.8 at 1024x262144.
# First the GPU against float64 (`cutec run --backward`: every element of dx, dw, db where
# M N <= 2^24), then the benches (one process each, a device copy of the same bytes in each:
# % of it compared) in this order while the budget lasts: LayerNorm at 4096x32768 lnb0 and
# the default; at 1024x262144 each op's lnb0, default, nopred, nopred,wstage (LayerNorm's
# nopred,wstage,colvec too); RMSNorm's lnb0 and default at 4096x32768; an Nsight Compute profile
# of LayerNorm's nopred,wstage at 1024x262144; LayerNorm's second turns at 4096x32768; the
# default beside PyTorch eager at the three shapes.
# The rule (points of the copy, first turns; "decides: FORM OP"):
#   lnb OP (the defaults against lnb0, at 4096x32768 for LayerNorm, 1024x262144 for both):
#     d >= -1 everywhere timed -> "keep default"; d < -2 anywhere -> "revert" (the flip:
#     row_lnb_form(p, "lean" / "wf32", true) in rows_compile.c's row_plan_forms and
#     row_lnb_form(p, "idx32", true) in rows_call.c's index_bound_of -> false); otherwise
#     "keep default (within noise)";
#   nopred OP: nopred - default at 1024x262144; wstage OP: nopred,wstage - nopred there;
#   colvec layernorm: nopred,wstage,colvec - nopred,wstage at 1024x262144 (dw's pass there
#     14.8 us, at 4096x32768 4.2): >= 1.5 -> "make default" (the flips:
#     nopred, row_plan_forms' row_lnb_form(p, "nopred", false) -> true; wstage,
#     cluster_stage's row_lnb_form(p, "wstage", false) -> true; colvec, columns.c's
#     rows_colsum, drop `if (rows_trial("colvec"))`); < 0.5 -> "delete"; otherwise "keep
#     opt-in".
#   A failed GPU check counts against each form its trial names (lnb: the defaults); a WRONG
#   bench row against the pair -> "delete" / "revert (wrong: fix it first)".
# Logs under $OUT; no bench starts past $BUDGET seconds (default 64), each under 16 s.
#   BUDGET=64 ITERS=10 sh scripts/device-lnb.sh
. scripts/device-common.sh
log="$out/lnb.log"
start=$(date +%s)
budget=${BUDGET:-64}
BENCH_TIMEOUT=16
command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
# bench TRIAL OP [--shape S]: `cutec bench OP --backward` under CUTEC_ROWS_TRIAL=TRIAL (0: the
# default; lnb0: CUTEC_ROWS_SCHEDULE=lnb0), no PyTorch, into $out/lnb-TRIAL-OP.txt (appended)
bench()
{
    t=$1 op=$2
    shift 2
    sched=0 && [ "$t" = lnb0 ] && sched=lnb0
    echo "-- CUTEC_ROWS_TRIAL=$t CUTEC_ROWS_SCHEDULE=$sched $op backward $*"
    CUTEC_ROWS_SCHEDULE=$sched CUTEC_ROWS_TRIAL=$t CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$op" --backward "$@" \
        >"$out/lnb.one" 2>&1
    grep -v "^#" "$out/lnb.one"
    cat "$out/lnb.one" >>"$out/lnb-$t-$op.txt"
}
# pct TRIAL OP SHAPE [TURN]: the % of the copy of that shape's row in the TURN-th bench of
# TRIAL (default 1; "" not timed, W wrong)
pct()
{
    [ -f "$out/lnb-$1-$2.txt" ] || return
    awk -v op="$2" -v s="$3" -v turn="${4:-1}" '$1 == op && $2 == "bwd" && $4 == s && ++k == turn {
        p = $8; sub("%", "", p); print (/WRONG|failed/ ? "W" : p) }' "$out/lnb-$1-$2.txt"
}
diff2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "W" || b == "W") print "W"; else if (a == "" || b == "") print ""; else printf "%.2f", a - b }'; }
mean2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "W" || b == "W") print "W"; else if (a == "" || b == "") print a b; else printf "%.2f", (a + b) / 2 }'; }
# decide WHAT OP D1 WHERE1 [D2 WHERE2]: a form's points against the form it adds to (D1 at
# WHERE1, the shape that decides; D2 at WHERE2, where it must not lose more than 1; "" not
# timed, W wrong); a check of WHAT's on the GPU that failed ($bad) makes it wrong too
decide()
{
    awk -v what="$1" -v op="$2" -v a="$3" -v wa="$4" -v b="${5:-}" -v wb="${6:-}" -v bad="${bad:-} " 'BEGIN {
        n = split(what, f, "+"); wrong = a b ~ /W/
        for (i = 1; i <= n; i++) if (index(bad, " " f[i] " ")) wrong = 1
        if (wrong) { print "decides: " what " " op ": delete (wrong: fix it first)"; exit }
        if (a == "" && b == "") { print "decides: " what " " op ": keep opt-in (not timed)"; exit }
        win = (a != "" && a >= 1.5 && (b == "" || b >= -1)) || (b != "" && b >= 1.5 && (a == "" || a >= -1))
        v = win ? "make default" : (a == "" || a < 0.5) && (b == "" || b < 0.5) ? "delete" : "keep opt-in"
        printf "decides: %s %s: %s (points of the copy: %s %s%s)\n", what, op, v, wa, a, b == "" ? "" : ", " wb " " b }'
}
# kept OP D1 WHERE1 [D2 WHERE2]: the defaults against lnb0 (the rule above)
kept()
{
    awk -v op="$1" -v a="$2" -v wa="$3" -v b="${4:-}" -v wb="${5:-}" -v bad="${bad:-} " 'BEGIN {
        if (a b ~ /W/ || index(bad, " 0 ")) { print "decides: lnb " op ": revert (wrong: fix it first)"; exit }
        if (a == "" && b == "") { print "decides: lnb " op ": keep default (not timed)"; exit }
        v = (a != "" && a < -2) || (b != "" && b < -2) ? "revert" \
            : (a == "" || a >= -1) && (b == "" || b >= -1) ? "keep default" : "keep default (within noise)"
        printf "decides: lnb %s: %s (points of the copy, the defaults - lnb0: %s %s%s)\n", op, v, wa, a, b == "" ? "" : ", " wb " " b }'
}
# prof NAME N TRIAL ARGS: the Nsight Compute profile of `cutec run ARGS` under CUTEC_ROWS_TRIAL=TRIAL: the N launches
# after the forward that makes the statistics (the backward's row kernel, then dw's and db's
# column sums), their time, issue slots, and the stall reasons per issued instruction
prof()
{
    name=$1 n=$2 t=$3
    shift 3
    budget_left || { echo "== skipped (time): ncu $name"; return; }
    command -v ncu >/dev/null || { echo "== no ncu: $name not profiled"; return; }
    echo "== $(($(date +%s) - start)) s: ncu $name: CUTEC_ROWS_TRIAL=$t cutec run $*"
    set -- --clock-control none --kernel-name-base function --kernel-name 'regex:_kernel_[0-9]+$' --launch-skip 1 \
        --launch-count "$n" --section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats \
        --section WarpStateStats build/cutec run "$@"
    CUTEC_ROWS_TRIAL=$t timeout 25 ncu --metrics \
        'regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$,sm__inst_executed.sum' "$@" \
        >"$out/$name.txt" 2>&1
    rc=$?
    echo "rc $rc"
    if [ $rc -ne 0 ] && budget_left; then # (the metrics refused: the sections alone)
        CUTEC_ROWS_TRIAL=$t timeout 20 ncu "$@" >"$out/$name.txt" 2>&1
        echo "rc $? (without --metrics)"
    fi
    grep -E "^  [a-z_0-9]+_kernel_|Duration|DRAM Throughput|Grid Size|Cluster Size|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|inst_executed|cycles being stalled" \
        "$out/$name.txt" | cut -c1-240 | head -40
    # the eight largest stall reasons above 0.05 warps an issue, per kernel
    awk '/_kernel_/ { k = $1 } /issue_stalled_/ && $NF + 0 > 0.05 { s = $1; sub("smsp__average_warps_issue_stalled_", "", s);
        sub("_per_issue_active.ratio", "", s); print k, s, $NF }' "$out/$name.txt" | sort -k1,1 -k3,3nr | awk '++c[$1] <= 8' 
}
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
        for op in layernorm rmsnorm; do echo "decides: lnb $op: keep default (no GPU)"; done
        for d in "nopred layernorm" "nopred rmsnorm" "wstage layernorm" "wstage rmsnorm" "colvec layernorm"; do
            echo "decides: $d: keep opt-in (no GPU)"
        done
    else
        echo "== the GPU against float64 (every element)"
        for a in "0 layernorm bf16 500x32760" "0 rmsnorm f16 301x32768" "0 layernorm f16 1001x4096" \
            "0 layernorm bf16 37x262136" "nopred,wstage layernorm bf16 37x262136" "nopred rmsnorm bf16 64x262144" \
            "colvec layernorm bf16 411x32768"; do
            set -- $a # (trial, op, dtype, shape)
            CUTEC_ROWS_TRIAL=$1 timeout 20 build/cutec run "$2" --backward --dtype "$3" --shape "$4" >"$out/lnb.one" 2>&1
            echo "CUTEC_ROWS_TRIAL=$1: $(tail -n 1 "$out/lnb.one")"
            # a failed check marks each form its trial names wrong
            grep -q "verified (0 wrong)" "$out/lnb.one" || bad="${bad:-} $(echo "$1" | tr , ' ')"
        done
        S=4096x32768 L=1024x262144
        bench lnb0 layernorm --shape $S
        bench 0 layernorm --shape $S
        for op in layernorm rmsnorm; do
            bench lnb0 $op --shape $L
            bench 0 $op --shape $L
            bench nopred $op --shape $L
            bench nopred,wstage $op --shape $L
            [ $op = layernorm ] && bench nopred,wstage,colvec $op --shape $L
        done
        bench lnb0 rmsnorm --shape $S
        bench 0 rmsnorm --shape $S
        prof ncu-ln-262144 3 nopred,wstage layernorm --backward --dtype bf16 --shape $L --iters 1
        bench 0 layernorm --shape $S
        bench lnb0 layernorm --shape $S
        echo "-- the defaults, PyTorch eager beside (GB/s in its column)"
        CUTEC_ROWS_TRIAL=0 bench_bf16 layernorm --backward
        echo "== at $(($(date +%s) - start)) s: % of the copy (second turns after the comma)"
        for op in layernorm rmsnorm; do
            for s in 16384x4096 $S $L; do
                line=""
                for t in lnb0 0 nopred nopred,wstage nopred,wstage,colvec; do
                    [ -n "$(pct $t $op $s)" ] && line="$line $t $(pct $t $op $s)$([ -n "$(pct $t $op $s 2)" ] && echo ", $(pct $t $op $s 2)");"
                done
                echo "$op bwd $s:$line"
            done
        done
        kept layernorm "$(diff2 "$(pct 0 layernorm $S)" "$(pct lnb0 layernorm $S)")" "at $S" \
            "$(diff2 "$(pct 0 layernorm $L)" "$(pct lnb0 layernorm $L)")" "at $L"
        kept rmsnorm "$(diff2 "$(pct 0 rmsnorm $L)" "$(pct lnb0 rmsnorm $L)")" "at $L" \
            "$(diff2 "$(pct 0 rmsnorm $S)" "$(pct lnb0 rmsnorm $S)")" "at $S"
        for op in layernorm rmsnorm; do
            decide nopred $op "$(diff2 "$(pct nopred $op $L)" "$(pct 0 $op $L)")" "nopred - default at $L"
            decide wstage $op "$(diff2 "$(pct nopred,wstage $op $L)" "$(pct nopred $op $L)")" "nopred,wstage - nopred at $L"
        done
        decide colvec layernorm "$(diff2 "$(pct nopred,wstage,colvec layernorm $L)" "$(pct nopred,wstage layernorm $L)")" \
            "nopred,wstage,colvec - nopred,wstage at $L"
        echo "layernorm bwd at $S, the defaults - lnb0, the mean of two turns each:" \
            "$(diff2 "$(mean2 "$(pct 0 layernorm $S)" "$(pct 0 layernorm $S 2)")" "$(mean2 "$(pct lnb0 layernorm $S)" "$(pct lnb0 layernorm $S 2)")")"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | grep -v "^# \(check\|time\|index\|  (allowed\)" | tail -n 120
