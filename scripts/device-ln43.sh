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
# the cluster), or is a least of 0 what this metric reads on any launch?  This pass asks ncu,
# one launch each (launch__cluster_max_active, sm__cycles_active least / mean / most, warps
# active): the row kernels at 1024x262144 in clusters of 16 (softmax, six blocks an SM), of 8
# (RMSNorm, three), at 4096x32768 in clusters of 2 (LayerNorm, seven), at 16384x4096 without a
# cluster (LayerNorm's row128, seven); and LayerNorm's bench at 1024x262144 once (the copy
# beside).  No step starts past $BUDGET (40) s.
# It decides: "cluster launches leave SMs idle" when the kernel without a cluster has a least
# above 0 and a kernel in clusters of 16 a least of 0; "a least of 0 on every launch: not a
# count of idle SMs" when the kernel without a cluster reads 0 too; else "undecided".  The
# idle SMs a launch's figures allow at most: 132 (1 - mean / most).
#   BUDGET=40 ITERS=10 sh scripts/device-ln43.sh
. scripts/device-common.sh
log="$out/ln43.log"
start=$(date +%s)
budget=${BUDGET:-40}
BENCH_TIMEOUT=8
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
        rows_trial_bench ln43 0 layernorm 1024x262144
        prof c16 softmax 1024x262144 && l16=$least
        prof c8 rmsnorm 1024x262144 && l8=$least
        prof c2 layernorm 4096x32768 && l2=$least
        prof c0 layernorm 16384x4096 && l0=$least
        echo "== at $(el) s: sm__cycles_active least: clusters of 16 ${l16:-}, of 8 ${l8:-}, of 2 ${l2:-}, none ${l0:-}"
        awk -v a="${l16:-}" -v z="${l0:-}" 'BEGIN {
            if (a == "" || z == "") { print "decides: idle SMs: undecided (not both profiled)"; exit }
            if (z + 0 > 0 && a + 0 == 0) print "decides: idle SMs: cluster launches leave SMs idle (clusters of 16 least 0, no cluster least " z ")"
            else if (z + 0 == 0) print "decides: idle SMs: a least of 0 on every launch: not a count of idle SMs"
            else print "decides: idle SMs: undecided (clusters of 16 least " a ", no cluster " z ")" }'
    else
        echo "== no GPU here: nothing timed"
        echo "decides: idle SMs: undecided (no GPU)"
    fi
    device_end
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|torch\|  (allowed\)" "$log" | tail -n 100
