#!/bin/sh
# The pass of branch lnb on a GPU machine (issue 16: the norms' backward, LayerNorm's gap to
# RMSNorm at 4096x32768), under 80 s on one H200 after `make all tests`.
# The count behind it (sm_90a SASS, bf16): both norms' backward at 4096x32768 run the same
# plan (clusters of 8 blocks of 256 threads, two an SM, 16 values a thread of a row's part a
# turn, four staged buffers, the pipelined exchange), and their times followed their row
# loops' instruction counts: LayerNorm 793 a turn against RMSNorm's 605 (1.31x; 298 against
# 230 us on the H200, 1.30x); at 16384x4096 716 against 585 (1.22x; 135 against 111 us,
# 1.22x).  Both issue at ~66% of the SMs' peak rate; the bytes are not the bound.  The
# candidates, opt-in (CUTEC_ROWS_TRIAL):
#   lean:  the backwards by fewer instructions an element (layernorm.c, rmsnorm.c): dx by two
#          FMAs about the mean, rstd applied to the stage's sums once, dw and db summed
#          without a select an element, the means by 1/n.  Row loop, LayerNorm / RMSNorm:
#          4096: 716 -> 617 / 585 -> 525; 32768: 793 -> 687 / 605 -> 543; 262144: 1298 ->
#          1162 / 1194 -> 1084 (sm_90a, no spill).
#   idx32: (with lean) a call whose extents and strides are all within 2^15 (4096x32768,
#          16384x4096) promises so (cute_index_bound): 32-bit offsets and bounds checks, where
#          64-bit ones take two instructions a compare.  Row loop with lean, LayerNorm /
#          RMSNorm: 32768 687 -> 659 / 543 -> 513; 4096 617 -> 611 / 525 -> 520.
#   wf32:  (with lean,idx32) a staged 16-bit weight widened once into an f32 copy in shared
#          memory, not in both passes of every row: LayerNorm / RMSNorm 32768 659 -> 583 / 513
#          -> 473; 4096 611 -> 530 / 520 -> 448 (793 -> 583 and 605 -> 473 from the default).
#   tiles: (with lean) rows over two 256-thread tiles or more in clusters of 4 blocks, each
#          walking 8192 columns in two or four tiles with sums of their own (not 8 of 4096):
#          about as many instructions an element (LayerNorm ~1328 a turn of 32 values), so it
#          tests whether the cluster's size (and the weight read from L2, not staged) matter.
# First the GPU against float64 (`cutec run --backward`: every element of dx, dw, db where
# M N <= 2^24), then at 4096x32768 each op's default, lean, lean,idx32, lean,idx32,wf32 (and
# LayerNorm's lean,tiles; one bench process each, a device copy of the same bytes in each: %
# of it compared), an Nsight Compute profile of LayerNorm's lean,idx32,wf32 there (the row
# kernel and the dw/db pass: time, issue slots, stall reasons) and of LayerNorm's lean at
# 1024x262144, then lean,idx32,wf32 and the default at the three shapes (the second turns at
# 4096x32768), while the budget lasts.
# The rule (points of the copy, d = candidate - the form it adds to, first turns):
#   lean, per op: d >= 1.5 at 4096x32768 and d >= -1 at the other two (where lean was not
#     timed alone there, lean,idx32,wf32 against the default) -> "make default" (the
#     flip: rows_compile.c's row_plan_forms, `if (lean && rows_trial("lean"))` -> `if (lean)`;
#     for one op only, `lean = ...` keeps the other's clause); every d < 0.5 -> "delete";
#     otherwise "keep opt-in".
#   idx32, wf32, tiles, each against the form it adds to (idx32: lean,idx32 - lean; wf32:
#     lean,idx32,wf32 - lean,idx32; tiles: lean,tiles - lean) at 4096x32768, per op: >= 1.5
#     -> "make default" (the flips: idx32, rows_call.c's index_bound_of, drop
#     `!rows_trial("idx32") ||`; wf32, rows_compile.c's row_plan_forms, drop
#     `rows_trial("wf32") &&`; tiles, rows_compile.c's cluster_stage, drop
#     `rows_trial("tiles") &&`); < 0.5 -> "delete"; otherwise "keep opt-in".
#   A failed check against float64 (it counts against the trial's last form: lean,idx32,wf32's
#   against wf32) or a WRONG bench row -> "delete (wrong: fix it first)".
# Logs under $OUT; no bench starts past $BUDGET seconds (default 60).
#   BUDGET=60 ITERS=10 sh scripts/device-lnb.sh
. scripts/device-common.sh
log="$out/lnb.log"
start=$(date +%s)
budget=${BUDGET:-60}
BENCH_TIMEOUT=20
command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
# bench TRIAL OP [--shape S]: `cutec bench OP --backward` under CUTEC_ROWS_TRIAL=TRIAL (0: the
# default), no PyTorch, into $out/lnb-TRIAL-OP.txt (appended), shown
bench()
{
    t=$1 op=$2
    shift 2
    echo "-- CUTEC_ROWS_TRIAL=$t $op backward $*"
    CUTEC_ROWS_TRIAL=$t CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$op" --backward "$@" >"$out/lnb.one" 2>&1
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
# decide_lean OP D4096 D32768 D262144 (points; "" not timed, W wrong)
decide_lean()
{
    awk -v op="$1" -v a="$2" -v b="$3" -v c="$4" -v bad="${bad:-} " 'BEGIN {
        if (bad ~ / lean / || a b c ~ /W/) { print "decides: lean " op ": delete (wrong: fix it first)"; exit }
        if (b == "") { print "decides: lean " op ": keep opt-in (not timed)"; exit }
        v = b >= 1.5 && (a == "" || a >= -1) && (c == "" || c >= -1) ? "make default" \
            : b < 0.5 && (a == "" || a < 0.5) && (c == "" || c < 0.5) ? "delete" : "keep opt-in"
        printf "decides: lean %s: %s (points of the copy against the default: 16384x4096 %s, 4096x32768 %s, 1024x262144 %s)\n", op, v, a, b, c }'
}
# decide_with T OP D WHAT: T's increment D (points at 4096x32768; WHAT: the pair compared)
decide_with()
{
    awk -v t="$1" -v op="$2" -v d="$3" -v what="$4" -v bad="${bad:-} " 'BEGIN {
        if (d ~ /W/ || index(bad, " " t " ")) { print "decides: " t " " op ": delete (wrong: fix it first)"; exit }
        if (d == "") { print "decides: " t " " op ": keep opt-in (not timed)"; exit }
        v = d >= 1.5 ? "make default" : d < 0.5 ? "delete" : "keep opt-in"
        printf "decides: %s %s: %s (%s at 4096x32768: %+.2f points of the copy)\n", t, op, v, what, d }'
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
    # the stall reasons above 0.05 warps an issue, largest first, per kernel
    awk '/_kernel_/ { k = $1 } /issue_stalled_/ && $NF + 0 > 0.05 { s = $1; sub("smsp__average_warps_issue_stalled_", "", s);
        sub("_per_issue_active.ratio", "", s); print k, s, $NF }' "$out/$name.txt" | sort -k1,1 -k3,3nr | head -30
}
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
        echo "decides: lean layernorm: keep opt-in (no GPU)"
        echo "decides: lean rmsnorm: keep opt-in (no GPU)"
        for t in idx32 wf32 tiles; do
            echo "decides: $t layernorm: keep opt-in (no GPU)"
            echo "decides: $t rmsnorm: keep opt-in (no GPU)"
        done
    else
        echo "== the GPU against float64 (every element)"
        for a in "lean layernorm f16 300x32776" "lean layernorm bf16 37x262136" "lean rmsnorm bf16 64x262144" \
            "lean,tiles layernorm bf16 411x32768" "lean,idx32,wf32 layernorm bf16 500x32760" \
            "lean,idx32,wf32 rmsnorm f16 1000x4096" "lean,idx32,wf32 layernorm bf16 2000x4096" \
            "lean,idx32 layernorm bf16 300x32768"; do
            set -- $a # (trial, op, dtype, shape)
            CUTEC_ROWS_TRIAL=$1 timeout 20 build/cutec run "$2" --backward --dtype "$3" --shape "$4" >"$out/lnb.one" 2>&1
            echo "CUTEC_ROWS_TRIAL=$1: $(tail -n 1 "$out/lnb.one")"
            # a failed check marks the trial's last form wrong (lean,idx32,wf32: wf32)
            grep -q "verified (0 wrong)" "$out/lnb.one" || bad="${bad:-} ${1##*,}"
        done
        S=4096x32768
        for op in layernorm rmsnorm; do
            bench 0 $op --shape $S
            bench lean $op --shape $S
            bench lean,idx32 $op --shape $S
            bench lean,idx32,wf32 $op --shape $S
            [ $op = layernorm ] && bench lean,tiles $op --shape $S
        done
        prof ncu-ln-32768 3 lean,idx32,wf32 layernorm --backward --dtype bf16 --shape $S --iters 1
        prof ncu-ln-262144 3 lean layernorm --backward --dtype bf16 --shape 1024x262144 --iters 1
        # the three shapes (the second turns at 4096x32768)
        bench lean,idx32,wf32 layernorm
        bench 0 layernorm
        bench lean,idx32,wf32 rmsnorm
        bench 0 rmsnorm
        F=lean,idx32,wf32
        echo "== at $(($(date +%s) - start)) s: % of the copy (default / lean / lean,idx32 / $F / lean,tiles;" \
            "the second turns of the default and $F after the comma)"
        for op in layernorm rmsnorm; do
            for s in 16384x4096 4096x32768 1024x262144; do
                echo "$op bwd $s: $(pct 0 $op $s) / $(pct lean $op $s) / $(pct lean,idx32 $op $s) / $(pct $F $op $s) /" \
                    "$(pct lean,tiles $op $s), $(pct 0 $op $s 2) / $(pct $F $op $s 2)"
            done
        done
        for op in layernorm rmsnorm; do
            # lean at 4096 and 262144: where lean was not timed alone there, the whole form
            # against the default (idx32 and wf32 do not apply at 262144)
            d4=$(diff2 "$(pct lean $op 16384x4096)" "$(pct 0 $op 16384x4096)")
            [ -n "$d4" ] || d4=$(diff2 "$(pct $F $op 16384x4096)" "$(pct 0 $op 16384x4096)")
            d262=$(diff2 "$(pct lean $op 1024x262144)" "$(pct 0 $op 1024x262144)")
            [ -n "$d262" ] || d262=$(diff2 "$(pct $F $op 1024x262144)" "$(pct 0 $op 1024x262144)")
            decide_lean $op "$d4" "$(diff2 "$(pct lean $op 4096x32768)" "$(pct 0 $op 4096x32768)")" "$d262"
            decide_with idx32 $op "$(diff2 "$(pct lean,idx32 $op 4096x32768)" "$(pct lean $op 4096x32768)")" "lean,idx32 against lean"
            decide_with wf32 $op "$(diff2 "$(pct $F $op 4096x32768)" "$(pct lean,idx32 $op 4096x32768)")" "$F against lean,idx32"
            decide_with tiles $op "$(diff2 "$(pct lean,tiles $op 4096x32768)" "$(pct lean $op 4096x32768)")" "lean,tiles against lean"
            echo "$op bwd 4096x32768, $F against the default (the mean of two turns each):" \
                "$(diff2 "$(mean2 "$(pct $F $op 4096x32768)" "$(pct $F $op 4096x32768 2)")" "$(mean2 "$(pct 0 $op 4096x32768)" "$(pct 0 $op 4096x32768 2)")") points"
        done
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | grep -v "^# \(check\|time\|index\|  (allowed\)" | tail -n 120
