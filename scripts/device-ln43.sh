#!/bin/sh
# The mid pass of branch ln43 on one H200 (issue 16: LayerNorm forward bf16 1024x262144 at
# 3.7 TB/s; session 42's census 3,572 GB/s, 85.1% of the copy; RMSNorm 3,739), under 50 s of
# GPU work after the lead's `make all tests` (nothing is built here); log $OUT/ln43.log.
# Two forms (bench/RESULTS.md, ln43; docs/reductions.md), each opt-in:
#  - colpf (CUTEC_ROWS_TRIAL=colpf, row_plan.cols_prefetch): the write pass's chunk loop asks
#    L1 for the next chunk's weight and bias (prefetch.global.L1, 8 a chunk a thread: a line a
#    vector, no register held), the first write chunk's before the cluster exchange, so that
#    each chunk's 8 LDG.128 find L1 where today each waits out its L2 round trip at the
#    chunk's top (every earlier way of issuing them ahead held them in registers and cost a
#    block or a spill).  sm_90a bf16 1024x262144: 71 registers, no spill; the write loop 316
#    -> 366 instructions a chunk.  Predicted: 1024x262144 0 to +2 points, 4096x32768 0 to +1;
#  - side48 (CUTEC_ROWS_SIDE=48, rows_call.c's side_rows): the last 48 of the 1024 rows by a
#    second launch of 64 KB parts (clusters of 8, three blocks of 256 threads an SM, as under
#    CUTEC_ROWS_HEX=0) on the library's own stream, for the SMs the clusters of 16 never reach
#    (the driver holds 49 clusters of 16: 784 of 924 block slots; by the count, the GPC of 8
#    SMs holds none: three clusters of 8 there).  The count: the first launch's 976 rows at 49
#    clusters a wave of ~14.4 us ~ 287 us, the side's 48 at 3 of ~14.5 us (CUTEC_ROWS_HEX=0's
#    77.5% of the copy) ~ 232 us, where 1024 rows took ~301: predicted +2 to +4 points at
#    1024x262144 if the second launch's clusters run beside the first's on the idle GPC, -1 to
#    -3 if they wait for its end (a wave more).
# This pass: `cutec run layernorm` on the GPU against float64 (every element) under each form
# (colpf bf16 4x262152: the cluster's last part ends 8 elements into its chunks, f16
# 17x24584: hexrow's clusters of 2 with a short tail; side48 bf16 64x262152: 3 rows by the
# second launch); then `cutec bench layernorm` bf16 default / colpf / side48 / default / colpf
# / side48 at 1024x262144, default / colpf at 4096x32768 (side48 does not apply: clusters of
# 2), each bench its own process with the device copy of the same bytes in it; ncu on one
# launch of the default at 1024x262144 (its SMs' busy cycles least / mean / most: whether
# some SMs idle) and, where the budget leaves room, of colpf (L1's hit rate; prof42's
# default: 14.2% L1 hits, 45.5 M L2 sectors read, 301 us), RMSNorm's default once.  No step
# starts past $BUDGET (40) s, a bench under 8 s.
# The rules (points of the copy, d = form - default, each round's pair):
#  - colpf: "make default" when the mean d at 1024x262144 (two rounds) is >= +0.5 with both
#    rounds ahead and d at 4096x32768 (one round) >= -0.3; "delete" when the mean d at
#    1024x262144 is < 0; else "time again" (the final pass);
#  - side48: "make default (48 rows; the final pass times 32 and 64)" when the mean d at
#    1024x262144 is >= +0.5 with both rounds ahead; "delete" when it is <= -2; else "time 32
#    and 96 in the final pass".
# A failed check or a WRONG row decides "delete (WRONG)".  GB/s against issue 16's 3,700.
#   BUDGET=40 ITERS=10 sh scripts/device-ln43.sh
. scripts/device-common.sh
log="$out/ln43.log"
start=$(date +%s)
budget=${BUDGET:-40}
BENCH_TIMEOUT=8
L=1024x262144
S=4096x32768
T=colpf
# one T OP SHAPE [ENV=VALUE]: a bench (rows_trial_bench), its % of the copy into $pct, its GB/s
# into $gbs
one()
{
    t=$1 op=$2 s=$3
    shift 3
    rows_trial_bench ln43 "$t" "$op" "$s" "$*" "$@"
    pct=$(rows_pct "$out/ln43.one" "$op" fwd "$s") gbs=$(rows_gbs "$out/ln43.one" "$op" "$s")
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
# rule NAME D1 D2 [D3]: the verdict line of a form from its two rounds at $L (and its round at $S)
rule()
{
    awk -v t="$1" -v a="$2" -v b="$3" -v c="${4:-}" -v L="$L" -v S="$S" 'BEGIN {
        if (a b c ~ /W/) { print "decides: " t ": delete (WRONG): a bench row above is WRONG"; exit }
        if (a == "" || b == "") { print "decides: " t ": time again (not timed twice at " L ")"; exit }
        ml = (a + b) / 2
        if (t == "colpf") v = ml >= 0.5 && a > 0 && b > 0 && (c == "" || c >= -0.3) ? "make default" : ml < 0 ? "delete" : "time again"
        else v = ml >= 0.5 && a > 0 && b > 0 ? "make default (48 rows; the final pass times 32 and 64)" : ml <= -2 ? "delete" : "time 32 and 64 in the final pass"
        printf "decides: %s: %s (%s mean %+.2f, rounds %+.2f %+.2f%s)\n", t, v, L, ml, a, b, c == "" ? "" : sprintf("; %s %+.2f", S, c) }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 (every element) $(el_s)"
        for c in "bf16 4x262152" "f16 17x24584"; do
            # shellcheck disable=SC2086 # (the dtype and the shape)
            [ -n "${bad:-}" ] || rows_checked $T layernorm $c || bad=1
        done
        (export CUTEC_ROWS_SIDE=48; rows_checked 0 layernorm bf16 64x262152) || bad_side=1
        echo "== the benches $(el_s)"
        one 0 layernorm $L && l0=$pct gl0=$gbs
        one $T layernorm $L && lt=$pct glt=$gbs
        one 0 layernorm $L CUTEC_ROWS_SIDE=48 && ls=$pct gls=$gbs
        one 0 layernorm $L && l02=$pct gl02=$gbs
        one $T layernorm $L && lt2=$pct glt2=$gbs
        one 0 layernorm $L CUTEC_ROWS_SIDE=48 && ls2=$pct gls2=$gbs
        one 0 layernorm $S && s0=$pct gs0=$gbs
        one $T layernorm $S && st=$pct gst=$gbs
        echo "== ncu, one launch each $(el_s)"
        # (the default's SMs' busy cycles, least / mean / most: clusters of 16 fill 49 at once,
        # 784 of the 924 slots of seven blocks an SM; if a GPC cannot hold one, its SMs idle)
        prof 0 sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
        prof $T
        one 0 rmsnorm $L && r0=$pct gr0=$gbs
        echo "== at $(el) s: % of the copy (GB/s), bf16, in turns:"
        echo "   LayerNorm $L: default ${l0:-} / ${l02:-} (${gl0:-} / ${gl02:-}), $T ${lt:-} / ${lt2:-} (${glt:-} / ${glt2:-}), side48 ${ls:-} / ${ls2:-} (${gls:-} / ${gls2:-})"
        echo "   LayerNorm $S: default ${s0:-} (${gs0:-}), $T ${st:-} (${gst:-})"
        echo "   RMSNorm $L: ${r0:-} (${gr0:-})"
        echo "   issue 16's 3,700 GB/s at $L: default $(mark "${gl0:-}") / $(mark "${gl02:-}"); $T $(mark "${glt:-}") / $(mark "${glt2:-}"); side48 $(mark "${gls:-}") / $(mark "${gls2:-}")"
        dl1=$(diff2 "${lt:-}" "${l0:-}") dl2=$(diff2 "${lt2:-}" "${l02:-}") ds=$(diff2 "${st:-}" "${s0:-}")
        dd1=$(diff2 "${ls:-}" "${l0:-}") dd2=$(diff2 "${ls2:-}" "${l02:-}")
        echo "-- $T against the default: $L ${dl1:-} / ${dl2:-}, $S ${ds:-}; side48: $L ${dd1:-} / ${dd2:-}"
        if [ -n "${bad:-}" ]; then echo "decides: $T: delete (WRONG): a check against float64 above failed"; else rule $T "$dl1" "$dl2" "$ds"; fi
        if [ -n "${bad_side:-}" ]; then echo "decides: side48: delete (WRONG): a check against float64 above failed"; else rule side48 "$dd1" "$dd2"; fi
    else
        echo "== no GPU here: nothing timed"
        echo "decides: $T: undecided (no GPU)"
        echo "decides: side48: undecided (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|torch\|  (allowed\)" "$log" | tail -n 100
