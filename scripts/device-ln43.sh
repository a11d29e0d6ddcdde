#!/bin/sh
# The mid pass of branch ln43 on one H200 (issue 16: LayerNorm forward bf16 1024x262144 at
# 3.7 TB/s; session 42's census 3,572 GB/s, 85.1% of the copy; RMSNorm 3,739), under 50 s of
# GPU work after the lead's `make all tests` (nothing is built here); log $OUT/ln43.log.
# The trial (bench/RESULTS.md, ln43; docs/reductions.md): `colpf`, CUTEC_ROWS_TRIAL=colpf
# (row_plan.cols_prefetch): the write pass's chunk loop asks L1 for the next chunk's weight
# and bias (prefetch.global.L1, 8 a chunk a thread: a line a vector, no register held), the
# first write chunk's before the cluster exchange, so that each chunk's 8 LDG.128 find L1
# where today each waits out its L2 round trip at the chunk's top (every earlier way of
# issuing them ahead held them in registers and cost a block or a spill).  sm_90a bf16
# 1024x262144: 71 registers, no spill; the write loop 316 -> 366 instructions a chunk.
# Predicted: 1024x262144 0 to +2 points; 4096x32768 0 to +1 (its blocks share column slices).
# This pass: `cutec run layernorm` on the GPU against float64 (every element) under colpf
# (bf16 4x262152: the cluster's last part ends 8 elements into its chunks; 64x32776: hexrow's
# clusters of 2 with a short tail; f16 17x24584); then `cutec bench layernorm` bf16 default /
# colpf / default / colpf at 1024x262144, default / colpf at 4096x32768, RMSNorm's default at
# 1024x262144 once (each bench its own process, the device copy of the same bytes in it); then,
# where the budget leaves room, ncu on one launch of colpf, then of the default, at
# 1024x262144 (L1's hit rate: whether the prefetched lines are found there; the L2 sectors the
# SMs read, the stalls on loads, time; prof42 has the default's: 14.2% L1 hits, 45.5 M
# sectors, long scoreboard 4.17 warps an issue, 301 us).  No step starts past $BUDGET (40) s,
# a bench under 8 s.
# The rule (points of the copy, d = colpf - default, each round's pair): "make default" when
# the mean d at 1024x262144 (two rounds) is >= +0.5 with both rounds ahead and d at
# 4096x32768 (one round) >= -0.3; "delete" when the mean d at 1024x262144 is < 0; else "time
# again" (the final pass).  A failed check or a WRONG row decides "delete (WRONG)".  GB/s
# against issue 16's 3,700 beside.
#   BUDGET=40 ITERS=10 sh scripts/device-ln43.sh
. scripts/device-common.sh
log="$out/ln43.log"
start=$(date +%s)
budget=${BUDGET:-40}
BENCH_TIMEOUT=8
L=1024x262144
S=4096x32768
T=colpf
# one T OP SHAPE: a bench (rows_trial_bench), its % of the copy into $pct, its GB/s into $gbs
one()
{
    rows_trial_bench ln43 "$@"
    pct=$(rows_pct "$out/ln43.one" "$2" fwd "$3") gbs=$(rows_gbs "$out/ln43.one" "$2" "$3")
}
# mark GBS: whether a GB/s figure meets issue 16's 3,700
mark() { awk -v g="$1" 'BEGIN { print (g ~ /^[0-9.]+$/ ? (g >= 3700 ? g " (>= 3700)" : g " (short of 3700)") : "-") }'; }
# prof T [METRICS]: ncu on one launch of LayerNorm bf16 at $L under CUTEC_ROWS_TRIAL=T (prof42's
# metrics and METRICS), the lines that matter
prof()
{
    budget_left || { echo "-- ncu $1: skipped (time)"; return; }
    command -v ncu >/dev/null 2>&1 || { echo "-- ncu $1: no ncu"; return; }
    echo "-- ncu CUTEC_ROWS_TRIAL=$1 layernorm $L"
    CUTEC_ROWS_TRIAL=$1 CUTEC_TORCH_ROWS=/dev/null timeout 10 ncu --clock-control none --cache-control all --kernel-name-base function \
        -k regex:rows_kernel --launch-skip 2 --launch-count 1 --metrics \
        gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__cluster_max_active${2:+,$2} \
        build/cutec bench layernorm --shape $L --dtype bf16 --iters 3 >"$out/ln43-ncu-$1.txt" 2>&1
    grep -E "__|==ERR" "$out/ln43-ncu-$1.txt" | awk '{ print "   " $1, $NF }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 (every element) $(el_s)"
        for c in "bf16 4x262152" "bf16 64x32776" "f16 17x24584"; do
            # shellcheck disable=SC2086 # (the dtype and the shape)
            [ -n "${bad:-}" ] || rows_checked $T layernorm $c || bad=1
        done
        echo "== the benches $(el_s)"
        one 0 layernorm $L && l0=$pct gl0=$gbs
        one $T layernorm $L && lt=$pct glt=$gbs
        one 0 layernorm $L && l02=$pct gl02=$gbs
        one $T layernorm $L && lt2=$pct glt2=$gbs
        one 0 layernorm $S && s0=$pct gs0=$gbs
        one $T layernorm $S && st=$pct gst=$gbs
        one 0 rmsnorm $L && r0=$pct gr0=$gbs
        echo "== at $(el) s: % of the copy (GB/s), bf16, in turns:"
        echo "   LayerNorm $L: default ${l0:-} / ${l02:-} (${gl0:-} / ${gl02:-}), $T ${lt:-} / ${lt2:-} (${glt:-} / ${glt2:-})"
        echo "   LayerNorm $S: default ${s0:-} (${gs0:-}), $T ${st:-} (${gst:-})"
        echo "   RMSNorm $L: ${r0:-} (${gr0:-})"
        echo "   issue 16's 3,700 GB/s at $L: default $(mark "${gl0:-}") / $(mark "${gl02:-}"); $T $(mark "${glt:-}") / $(mark "${glt2:-}")"
        dl1=$(diff2 "${lt:-}" "${l0:-}") dl2=$(diff2 "${lt2:-}" "${l02:-}")
        ds=$(diff2 "${st:-}" "${s0:-}")
        echo "-- $T against the default: $L ${dl1:-} / ${dl2:-}, $S ${ds:-}"
        if [ -n "${bad:-}" ]; then
            echo "decides: $T: delete (WRONG): a check against float64 above failed"
        else
            awk -v a="$dl1" -v b="$dl2" -v c="$ds" -v L="$L" -v S="$S" -v t="$T" 'BEGIN {
                if (a b c ~ /W/) { print "decides: " t ": delete (WRONG): a bench row above is WRONG"; exit }
                if (a == "" || b == "") { print "decides: " t ": time again (not timed twice at " L ")"; exit }
                ml = (a + b) / 2
                v = ml >= 0.5 && a > 0 && b > 0 && (c == "" || c >= -0.3) ? "make default" : ml < 0 ? "delete" : "time again"
                printf "decides: %s: %s (%s mean %+.2f, rounds %+.2f %+.2f; %s %s)\n", t, v, L, ml, a, b, S, c == "" ? "not timed" : sprintf("%+.2f", c) }'
        fi
        echo "== ncu, one launch each $(el_s)"
        prof $T
        # (the default's SMs' busy cycles, least / mean / most: clusters of 16 fill 49 at once,
        # 784 of the 924 slots of seven blocks an SM; if a GPC cannot hold one, its SMs idle)
        prof 0 sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
    else
        echo "== no GPU here: nothing timed"
        echo "decides: $T: undecided (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|torch\|  (allowed\)" "$log" | tail -n 100
