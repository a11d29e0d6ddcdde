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
#   nopred: (with lean) the staged chunks read without a predicate an access (and the
#          registers zeroed before it): the buffers zeroed once (no copy writes past the row's
#          end), no write pass for a row past the matrix.  Row loop, LayerNorm / RMSNorm,
#          with lean,idx32,wf32: 32768 583 -> 589 / 473 -> 438, 4096 530 -> 527 / 448 -> 425;
#          with lean: 262144 1162 -> 1037 / 1084 -> 963.
#   colvec: dw's and db's partial rows summed four columns a thread (16-byte loads, N/128
#          blocks; the same bits), where one column a thread took 14.8 us for dw's 8 MB at
#          1024x262144 (ncu, session 33).
#   wstage: (with lean,nopred) at 1024x262144 the weight's 32 KB part staged beside the three
#          64 KB buffers (one block an SM takes 225 KB of the 227), read from shared memory,
#          not from L2 in each pass: LayerNorm 1037 -> 996, RMSNorm 963 -> 912.
# First the GPU against float64 (`cutec run --backward`: every element of dx, dw, db where
# M N <= 2^24), then the benches (one process each, a device copy of the same bytes in each:
# % of it compared) in this order while the budget lasts: LayerNorm at 4096x32768 default,
# lean, F = lean,idx32,wf32,nopred and F,colvec; an Nsight Compute profile of its F there (the row
# kernel and the dw/db pass: time, issue slots, stall reasons); at 1024x262144 each op's
# default, lean,nopred and lean,nopred,wstage, LayerNorm's lean; the profile of LayerNorm's
# lean,nopred,wstage there; then LayerNorm's lean,idx32,wf32 and second turns at 4096x32768,
# RMSNorm's default and F there, F,wstage,colvec at the three shapes beside PyTorch eager.
# The rule (points of the copy, first turns; "decides: FORM OP"): a form against the one it
# adds to, >= 1.5 at the shape that decides (or at the second, where it has one) and no worse
# than -1 at the other -> "make default"; < 0.5 at both -> "delete"; otherwise "keep opt-in":
#   lean layernorm: lean - default at 4096x32768 (and at 1024x262144);
#   idx32+wf32+nopred layernorm: F - lean at 4096x32768, lean,nopred - lean at 1024x262144;
#   wstage OP: lean,nopred,wstage - lean,nopred at 1024x262144;
#   lean+nopred rmsnorm: lean,nopred - default at 1024x262144, F - default at 4096x32768;
#   colvec layernorm: F,colvec - F at 4096x32768.
# The flips: lean, rows_compile.c's row_plan_forms, `if (lean && rows_trial("lean"))` -> `if
# (lean)`; idx32, rows_call.c's index_bound_of, drop `!rows_trial("idx32") ||`; wf32 and
# nopred, row_plan_forms, drop `rows_trial("wf32") &&` / `rows_trial("nopred") &&`; wstage,
# cluster_stage, drop `&& rows_trial("wstage")`; colvec, columns.c's rows_colsum, drop
# `if (rows_trial("colvec"))`.  A failed
# GPU check counts against each form its trial names; a WRONG bench row against the pair ->
# "delete (wrong: fix it first)".
# Logs under $OUT; no bench starts past $BUDGET seconds (default 64), each under 16 s.
#   BUDGET=64 ITERS=10 sh scripts/device-lnb.sh
. scripts/device-common.sh
log="$out/lnb.log"
start=$(date +%s)
budget=${BUDGET:-64}
BENCH_TIMEOUT=16
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
        for d in "lean layernorm" "idx32+wf32+nopred layernorm" "wstage layernorm" "wstage rmsnorm" \
            "lean+nopred rmsnorm" "colvec layernorm"; do
            echo "decides: $d: keep opt-in (no GPU)"
        done
    else
        echo "== the GPU against float64 (every element)"
        for a in "lean layernorm f16 300x32776" "lean rmsnorm bf16 64x262144" "lean,colvec layernorm bf16 411x32768" \
            "lean,idx32,wf32 layernorm bf16 500x32760" "lean,nopred layernorm bf16 37x262136" \
            "lean,idx32,wf32,nopred rmsnorm bf16 301x32768" "lean,idx32,wf32,nopred layernorm f16 1001x4096" \
            "lean,nopred,wstage rmsnorm f16 40x262136"; do
            set -- $a # (trial, op, dtype, shape)
            CUTEC_ROWS_TRIAL=$1 timeout 20 build/cutec run "$2" --backward --dtype "$3" --shape "$4" >"$out/lnb.one" 2>&1
            echo "CUTEC_ROWS_TRIAL=$1: $(tail -n 1 "$out/lnb.one")"
            # a failed check marks each form its trial names wrong
            grep -q "verified (0 wrong)" "$out/lnb.one" || bad="${bad:-} $(echo "$1" | tr , ' ')"
        done
        S=4096x32768 L=1024x262144 F=lean,idx32,wf32,nopred
        bench 0 layernorm --shape $S
        bench lean layernorm --shape $S
        bench $F layernorm --shape $S
        bench $F,colvec layernorm --shape $S
        prof ncu-ln-32768 3 $F layernorm --backward --dtype bf16 --shape $S --iters 1
        for op in layernorm rmsnorm; do
            bench 0 $op --shape $L
            bench lean,nopred $op --shape $L
            bench lean,nopred,wstage $op --shape $L
        done
        bench lean layernorm --shape $L
        prof ncu-ln-262144 3 lean,nopred,wstage layernorm --backward --dtype bf16 --shape $L --iters 1
        bench lean,idx32,wf32 layernorm --shape $S
        bench $F layernorm --shape $S
        bench 0 layernorm --shape $S
        bench 0 rmsnorm --shape $S
        bench $F rmsnorm --shape $S
        echo "-- CUTEC_ROWS_TRIAL=$F,wstage,colvec, PyTorch eager beside (GB/s in its column)"
        CUTEC_ROWS_TRIAL=$F,wstage,colvec bench_bf16 layernorm --backward
        echo "== at $(($(date +%s) - start)) s: % of the copy (second turns after the comma)"
        for op in layernorm rmsnorm; do
            for s in 16384x4096 $S $L; do
                line=""
                for t in 0 lean lean,idx32,wf32 lean,nopred lean,nopred,wstage $F $F,colvec; do
                    [ -n "$(pct $t $op $s)" ] && line="$line $t $(pct $t $op $s)$([ -n "$(pct $t $op $s 2)" ] && echo ", $(pct $t $op $s 2)");"
                done
                echo "$op bwd $s:$line"
            done
        done
        decide lean layernorm "$(diff2 "$(pct lean layernorm $S)" "$(pct 0 layernorm $S)")" "lean - default at $S" \
            "$(diff2 "$(pct lean layernorm $L)" "$(pct 0 layernorm $L)")" "at $L"
        decide idx32+wf32+nopred layernorm "$(diff2 "$(pct $F layernorm $S)" "$(pct lean layernorm $S)")" "$F - lean at $S" \
            "$(diff2 "$(pct lean,nopred layernorm $L)" "$(pct lean layernorm $L)")" "lean,nopred - lean at $L"
        for op in layernorm rmsnorm; do
            decide wstage $op "$(diff2 "$(pct lean,nopred,wstage $op $L)" "$(pct lean,nopred $op $L)")" \
                "lean,nopred,wstage - lean,nopred at $L"
        done
        decide lean+nopred rmsnorm "$(diff2 "$(pct lean,nopred rmsnorm $L)" "$(pct 0 rmsnorm $L)")" "lean,nopred - default at $L" \
            "$(diff2 "$(pct $F rmsnorm $S)" "$(pct 0 rmsnorm $S)")" "$F - default at $S"
        decide colvec layernorm "$(diff2 "$(pct $F,colvec layernorm $S)" "$(pct $F layernorm $S)")" "$F,colvec - $F at $S"
        echo "layernorm bwd: $F against the default, the mean of two turns at $S:" \
            "$(diff2 "$(mean2 "$(pct $F layernorm $S)" "$(pct $F layernorm $S 2)")" "$(mean2 "$(pct 0 layernorm $S)" "$(pct 0 layernorm $S 2)")");" \
            "at 16384x4096: $(diff2 "$(pct $F layernorm 16384x4096)" "$(pct 0 layernorm 16384x4096)")"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | grep -v "^# \(check\|time\|index\|  (allowed\)" | tail -n 120
