#!/bin/sh
# The last pass of branch ln43 on one H200 (issue 16: LayerNorm forward bf16 1024x262144 at
# 3.7 TB/s; 3,554-3,560 GB/s, 85.0-85.3% of the copy, in ln43's passes), under 50 s of GPU work
# after the lead's `make all tests` (nothing is built here); log $OUT/ln43.log.
# Every form ln43 built was measured slower and is deleted (bench/RESULTS.md, ln43): colpf
# (-4.25), CUTEC_ROWS_SIDE 48 / 32 / 32 at the greatest priority (-4.2 / -4.55 / -6.7), c8
# (clusters of 8 of 64 KB parts: -21.8).  The branch's kernels are main's (md5).  What is left
# open is a count for the next engineer: ncu's sm__cycles_active least was 0 cycles for
# LayerNorm's forward in clusters of 16 (mean 506 k, most 581 k) and in clusters of 8 (c8: 0 /
# 712 k / 765 k): do cluster launches leave some of the 132 SMs idle (a GPC that cannot hold
# the cluster), or is a least of 0 what this metric reads on any launch?  And what do the
# write pass's weight and bias cost (a block's life was latency-bound in c8's ncu)?
# This pass: `cutec bench layernorm` bf16 at 1024x262144 default / CUTEC_ROWS_DIAG=nocols (a
# diagnostic, wrong by design: weight and bias taken as 1, never loaded: the kernel's 25 LDG
# 9, 1,752 sm_90a instructions 1,392) / default / nocols, then at 4096x32768 default / nocols
# where the budget leaves room (nocols's rows print WRONG: their % is read all the same); then
# ncu, one launch each (launch__cluster_max_active, sm__cycles_active least / mean / most, warps
# active), of the row kernels at 1024x262144 in clusters of 16 (softmax, six blocks an SM), at
# 4096x32768 in clusters of 2 (LayerNorm, seven) and at 16384x4096 without a cluster
# (LayerNorm's row128, seven).  No step starts past $BUDGET (40) s.
# It decides: "the columns cost N points" (nocols's mean over the default's at 1024x262144,
# two rounds: what any form that hides their loads could win at most); "cluster launches leave
# SMs idle" when the kernel without a cluster has a least above 0 and the kernel in clusters of
# 16 a least of 0; "a least of 0 on every launch: not a count of idle SMs" when the kernel
# without a cluster reads 0 too; else "undecided".  The idle SMs a launch's figures allow at
# most: 132 (1 - mean / most).
#   BUDGET=40 ITERS=10 sh scripts/device-ln43.sh
. scripts/device-common.sh
log="$out/ln43.log"
start=$(date +%s)
budget=${BUDGET:-40}
BENCH_TIMEOUT=8
L=1024x262144
S=4096x32768
# raw_pct SHAPE: the % of the copy of LayerNorm's forward row at SHAPE in the last bench, WRONG
# or not (a diagnostic's rows are WRONG by design)
raw_pct() { awk -v s="$1" '$1 == "layernorm" && $2 == "fwd" && $4 == s { p = $8; sub("%", "", p); print p; exit }' "$out/ln43.one"; }
# prof NAME OP SHAPE: ncu on one launch of OP's forward (bf16) at SHAPE, its lines; the SMs'
# busy cycles least / mean / most into $least $mean $most (commas dropped)
prof()
{
    least='' mean='' most=''
    budget_left || { echo "-- ncu $1: skipped (time)"; return; }
    command -v ncu >/dev/null 2>&1 || { echo "-- ncu $1: no ncu"; return; }
    echo "-- ncu $2 $3 ($1) $(el_s)"
    CUTEC_TORCH_ROWS=/dev/null timeout 10 ncu --clock-control none --cache-control all --kernel-name-base function \
        -k regex:rows_kernel --launch-skip 2 --launch-count 1 --metrics \
        gpu__time_duration.sum,launch__cluster_max_active,launch__grid_size,launch__cluster_size,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max \
        build/cutec bench "$2" --shape "$3" --dtype bf16 --iters 3 >"$out/ln43-ncu-$1.txt" 2>&1
    grep -E "__|==ERR" "$out/ln43-ncu-$1.txt" | awk '{ print "   " $1, $NF }'
    least=$(awk '$1 == "sm__cycles_active.min" { gsub(",", "", $NF); print $NF }' "$out/ln43-ncu-$1.txt")
    mean=$(awk '$1 == "sm__cycles_active.avg" { gsub(",", "", $NF); print $NF }' "$out/ln43-ncu-$1.txt")
    most=$(awk '$1 == "sm__cycles_active.max" { gsub(",", "", $NF); print $NF }' "$out/ln43-ncu-$1.txt")
    echo "   idle SMs at most: $(awk -v a="$mean" -v m="$most" 'BEGIN { if (a != "" && m > 0) printf "%.1f", 132 * (1 - a / m) }')"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        for r in 1 2; do
            rows_trial_bench ln43 0 layernorm $L && eval "d$r=\$(raw_pct $L)"
            rows_trial_bench ln43 0 layernorm $L CUTEC_ROWS_DIAG=nocols CUTEC_ROWS_DIAG=nocols && eval "n$r=\$(raw_pct $L)"
        done
        rows_trial_bench ln43 0 layernorm $S && s0=$(raw_pct $S)
        rows_trial_bench ln43 0 layernorm $S CUTEC_ROWS_DIAG=nocols CUTEC_ROWS_DIAG=nocols && sn=$(raw_pct $S)
        echo "== at $(el) s: % of the copy, bf16: LayerNorm $L default ${d1:-} / ${d2:-}, nocols ${n1:-} / ${n2:-}; $S default ${s0:-}, nocols ${sn:-}"
        awk -v a="$(diff2 "${n1:-}" "${d1:-}")" -v b="$(diff2 "${n2:-}" "${d2:-}")" -v c="$(diff2 "${sn:-}" "${s0:-}")" -v L="$L" -v S="$S" 'BEGIN {
            if (a == "" || b == "") { print "decides: the columns: undecided (not timed twice)"; exit }
            printf "decides: the columns cost %.2f points at %s (rounds %+.2f %+.2f), %s at %s\n", (a + b) / 2, L, a, b, c == "" ? "-" : c, S }'
        prof c16 softmax 1024x262144 && l16=$least
        prof c2 layernorm $S && l2=$least
        prof c0 layernorm 16384x4096 && l0=$least
        echo "== at $(el) s: sm__cycles_active least: clusters of 16 ${l16:-}, of 2 ${l2:-}, none ${l0:-}"
        awk -v a="${l16:-}" -v z="${l0:-}" 'BEGIN {
            if (a == "" || z == "") { print "decides: idle SMs: undecided (not both profiled)"; exit }
            if (z + 0 > 0 && a + 0 == 0) print "decides: idle SMs: cluster launches leave SMs idle (clusters of 16 least 0, no cluster least " z ")"
            else if (z + 0 == 0) print "decides: idle SMs: a least of 0 on every launch: not a count of idle SMs"
            else print "decides: idle SMs: undecided (clusters of 16 least " a ", no cluster " z ")" }'
    else
        echo "== no GPU here: nothing timed"
        echo "decides: the columns: undecided (no GPU)"
        echo "decides: idle SMs: undecided (no GPU)"
    fi
    device_end
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|torch\|  (allowed\)" "$log" | tail -n 100
