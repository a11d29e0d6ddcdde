#!/bin/sh
# The pass of branch lnb on a GPU machine (issue 16: the norms' backward, LayerNorm at
# 4096x32768, both at 1024x262144), under 80 s on one H200 after `make all tests`.
# The count behind it (sm_90a SASS, bf16): the norms' backward issues at ~60-70% of the SMs'
# peak rate, and its time followed its row loop's instruction count (LayerNorm 793 a turn
# against RMSNorm's 605 at 4096x32768: 298 against 230 us, 1.30x); at 1024x262144 each row
# also read its weight part from L2 in both passes (as many L2 bytes as HBM bytes).  lnb's
# forms, the defaults since its mid passes (row_lnb_form, docs/reductions.md; row loop
# LayerNorm / RMSNorm at 4096 / 32768 / 262144, lnb0 -> now: 716 / 793 / 1298 -> 530 / 583 /
# 996; 585 / 605 / 1194 -> 448 / 473 / 912):
#   lean (dx by two FMAs about the mean, dw/db without a select, 1/n hoisted), idx32 (32-bit
#   index arithmetic within 2^15), wf32 (the staged weight widened once into an f32 copy),
#   nopred (a 1024-thread part's staged chunks read without a predicate), wstage (262144's
#   weight part staged beside the three buffers, 225 of 227 KB).
# The mid passes (H200, % of the copy, lnb0 -> now): LayerNorm 4096x32768 64.4 -> 78.8,
# 1024x262144 56.7 -> 78.6; RMSNorm 4096x32768 82.0 -> 88.7, 1024x262144 67.4 -> 89.9 (wstage
# +15.1 / +17.5 points over nopred alone).
# First the GPU against float64 (`cutec run --backward`: every element of dx, dw, db where
# M N <= 2^24; rows past the matrix in a 1024-thread part's last turn at 37x262136), then the
# benches (one process each, a device copy of the same bytes in each: % of it compared) while
# the budget lasts: each op's lnb0 and default at 4096x32768 and 1024x262144, the default
# without wstage (CUTEC_ROWS_TRIAL=no-wstage) and without nopred at 1024x262144, LayerNorm's
# second turns, the defaults beside PyTorch eager at the three shapes.
# The rule (points of the copy, first turns; "decides: FORM OP"):
#   lnb OP (the defaults - lnb0 at 4096x32768 and 1024x262144): d >= -1 at both -> "keep
#     default"; d < -2 at either -> "revert" (the flips: `true` -> `false` in each
#     row_lnb_form call, rows_compile.c's row_plan_forms and cluster_stage, rows_call.c's
#     index_bound_of); otherwise "keep default (within noise)";
#   wstage OP, nopred OP (the default - the default without it at 1024x262144): the same
#     rule, the flip that form's row_lnb_form(p, NAME, true) -> false (wstage: cluster_stage;
#     nopred: row_plan_forms).
#   A failed GPU check or a WRONG bench row -> "revert (wrong: fix it first)".
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
    sched=0 trial=$t
    [ "$t" = lnb0 ] && sched=lnb0 trial=0 # (CUTEC_ROWS_TRIAL refuses a name it does not know)
    echo "-- CUTEC_ROWS_TRIAL=$trial CUTEC_ROWS_SCHEDULE=$sched $op backward $*"
    CUTEC_ROWS_SCHEDULE=$sched CUTEC_ROWS_TRIAL=$trial CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$op" --backward "$@" \
        >"$out/lnb.one" 2>&1
    grep -v "^#" "$out/lnb.one"
    cat "$out/lnb.one" >>"$out/lnb-$t-$op.txt"
}
# pct TRIAL OP SHAPE [TURN]: the % of the copy of that shape's row in the TURN-th bench of
# TRIAL (default 1; "" not timed, W wrong)
pct() { rows_pct "$out/lnb-$1-$2.txt" "$2" bwd "$3" "${4:-1}"; }
# kept WHAT OP D1 WHERE1 [D2 WHERE2]: a default form (or all of lnb's) against the form
# without it (the rule above; "" not timed, W wrong)
kept()
{
    awk -v what="$1" -v op="$2" -v a="$3" -v wa="$4" -v b="${5:-}" -v wb="${6:-}" -v bad="${bad:-} " 'BEGIN {
        if (a b ~ /W/ || bad ~ /[^ ]/) { print "decides: " what " " op ": revert (wrong: fix it first)"; exit }
        if (a == "" && b == "") { print "decides: " what " " op ": keep default (not timed)"; exit }
        v = (a != "" && a < -2) || (b != "" && b < -2) ? "revert" \
            : (a == "" || a >= -1) && (b == "" || b >= -1) ? "keep default" : "keep default (within noise)"
        printf "decides: %s %s: %s (points of the copy: %s %s%s)\n", what, op, v, wa, a, b == "" ? "" : ", " wb " " b }'
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
        for d in lnb wstage nopred; do
            for op in layernorm rmsnorm; do echo "decides: $d $op: keep default (no GPU)"; done
        done
    else
        echo "== the GPU against float64 (every element)"
        for a in "0 layernorm bf16 37x262136" "0 rmsnorm f16 40x262136" "0 layernorm bf16 500x32760" \
            "0 rmsnorm f16 301x32768" "0 layernorm f16 1001x4096" "no-wstage layernorm bf16 37x262136"; do
            set -- $a # (trial, op, dtype, shape)
            CUTEC_ROWS_TRIAL=$1 timeout 20 build/cutec run "$2" --backward --dtype "$3" --shape "$4" >"$out/lnb.one" 2>&1
            echo "CUTEC_ROWS_TRIAL=$1: $(tail -n 1 "$out/lnb.one")"
            # a failed check marks each form its trial names wrong
            grep -q "verified (0 wrong)" "$out/lnb.one" || bad="${bad:-} $(echo "$1" | tr , ' ')"
        done
        S=4096x32768 L=1024x262144
        for op in layernorm rmsnorm; do
            bench lnb0 $op --shape $S
            bench 0 $op --shape $S
            bench lnb0 $op --shape $L
            bench 0 $op --shape $L
            bench no-wstage $op --shape $L
        done
        bench no-nopred layernorm --shape $L
        bench no-nopred rmsnorm --shape $L
        bench 0 layernorm --shape $L
        bench lnb0 layernorm --shape $L
        bench 0 layernorm --shape $S
        bench lnb0 layernorm --shape $S
        prof ncu-ln-262144 3 0 layernorm --backward --dtype bf16 --shape $L --iters 1
        echo "-- the defaults, PyTorch eager beside (GB/s in its column)"
        CUTEC_ROWS_TRIAL=0 bench_bf16 layernorm --backward
        CUTEC_ROWS_TRIAL=0 bench_bf16 rmsnorm --backward
        echo "== at $(($(date +%s) - start)) s: % of the copy (second turns after the comma)"
        for op in layernorm rmsnorm; do
            for s in $S $L; do
                line=""
                for t in lnb0 0 no-wstage no-nopred; do
                    [ -n "$(pct $t $op $s)" ] && line="$line $t $(pct $t $op $s)$([ -n "$(pct $t $op $s 2)" ] && echo ", $(pct $t $op $s 2)");"
                done
                echo "$op bwd $s:$line"
            done
        done
        for op in layernorm rmsnorm; do
            kept lnb $op "$(diff2 "$(pct 0 $op $S)" "$(pct lnb0 $op $S)")" "the defaults - lnb0 at $S" \
                "$(diff2 "$(pct 0 $op $L)" "$(pct lnb0 $op $L)")" "at $L"
            kept wstage $op "$(diff2 "$(pct 0 $op $L)" "$(pct no-wstage $op $L)")" "the default - no-wstage at $L"
            kept nopred $op "$(diff2 "$(pct 0 $op $L)" "$(pct no-nopred $op $L)")" "the default - no-nopred at $L"
        done
        echo "layernorm bwd, the defaults - lnb0, the mean of two turns each: at $S" \
            "$(diff2 "$(mean2 "$(pct 0 layernorm $S)" "$(pct 0 layernorm $S 2)")" "$(mean2 "$(pct lnb0 layernorm $S)" "$(pct lnb0 layernorm $S 2)")")," \
            "at $L $(diff2 "$(mean2 "$(pct 0 layernorm $L)" "$(pct 0 layernorm $L 2)")" "$(mean2 "$(pct lnb0 layernorm $L)" "$(pct lnb0 layernorm $L 2)")")"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | grep -v "^# \(check\|time\|index\|  (allowed\)" | tail -n 120
