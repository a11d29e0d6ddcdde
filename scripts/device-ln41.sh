#!/bin/sh
# A pass of branch ln41's decision on one H200 (issue 16: LayerNorm forward at the memory
# limit), under 60 s after the lead's `make all tests` (nothing is built here); log
# $OUT/ln41.log.  LayerNorm's forward at 1024x262144 and 4096x32768 ran six 32 KB split parts
# of 128 threads an SM (hex, hexrow), 33,136 / 32,912 bytes of shared memory each: 228 KB, no
# seventh block.  ln41's tail (rows_kernel.c's load_tail, the default since ln41's final pass)
# reads a part's last chunk from global memory in both passes instead of staging it: 24,928
# bytes, seven blocks an SM (72 registers, 196 KB).  The final pass (H200, 14:18 UTC, % of the
# copy, two rounds in turns): 1024x262144 81.1 / 81.4 -> 85.1 / 85.3, 4096x32768 88.3 / 88.0 ->
# 90.3 / 90.5 (3,778-3,787 GB/s); the tail at six blocks an SM (L1 92 KB) tied in the mid pass
# and at eight lost to seven: both deleted.  CUTEC_ROWS_TRIAL=no-tail gives the six staged
# parts back (the old kernels: md5 of the emitted CUDA).
# This pass confirms it: `cutec run layernorm` on the GPU against float64 (every element) of
# the default at the tail's shapes (bf16, f16, f32), then `cutec bench layernorm` bf16 default
# / no-tail at 1024x262144 and 4096x32768 in two rounds (the second reversed), f16 (not timed
# before) default / no-tail at both once, 16384x4096 (not the tail's) and RMSNorm at
# 1024x262144 once (the yardstick).  No step starts past $BUDGET (60) s, a bench under 8 s.
# The rule, per shape (points of the copy, d = default - no-tail, each round's pair): mean d >=
# 0.5 and d > 0 in both rounds -> "keep (confirmed)"; mean d < -0.5 -> "revert"
# (row_plan_forms's tail_global behind `rows_trial("tail") &&`); else "keep (within the
# spread)"; f16 (one pair a shape): d < -1 -> "revert for f16", else "keep"; a failed check or
# a WRONG row decides "revert (WRONG)".  The GB/s against issue 16's 3,700 are printed beside.
#   BUDGET=60 ITERS=10 sh scripts/device-ln41.sh
. scripts/device-common.sh
log="$out/ln41.log"
start=$(date +%s)
budget=${BUDGET:-60}
BENCH_TIMEOUT=8
L=1024x262144
S=4096x32768
# pct_of T OP SHAPE: `cutec bench OP --shape SHAPE --dtype $DT` (bf16 unless DT is set) under
# CUTEC_ROWS_TRIAL=T (0: none): its rows, the % of the copy into $pct and the GB/s into $gbs
# ("" skipped or failed, "W" wrong)
pct_of()
{
    echo "-- CUTEC_ROWS_TRIAL=$1 $2 $3 ${DT:-bf16}"
    if budget_left; then
        CUTEC_ROWS_TRIAL=$1 CUTEC_TORCH_ROWS=/dev/null timeout "$BENCH_TIMEOUT" build/cutec bench "$2" --shape "$3" \
            --dtype "${DT:-bf16}" --iters "$iters" >"$out/ln41.one" 2>&1
    else
        echo "== skipped (time)" >"$out/ln41.one"
    fi
    grep -v "^# \(check\|time\|index\)" "$out/ln41.one"
    pct=$(rows_pct "$out/ln41.one" "$2" fwd "$3")
    gbs=$(awk -v op="$2" -v s="$3" '$1 == op && $2 == "fwd" && $4 == s { print (/WRONG|failed/ ? "W" : $6); exit }' "$out/ln41.one")
}
# decide NAME D1 D2: the rule's line from the two rounds' d
decide()
{
    awk -v f="$1" -v a="$2" -v b="$3" 'BEGIN {
        if (a == "" || b == "" || a ~ /W/ || b ~ /W/) { print "decides: " f ": " (a b ~ /W/ ? "revert (WRONG)" : "keep (not timed)"); exit }
        m = (a + b) / 2
        v = m >= 0.5 && a > 0 && b > 0 ? "keep (confirmed)" : m < -0.5 ? "revert" : "keep (within the spread)"
        printf "decides: %s: %s (%+.2f points, rounds %+.2f %+.2f)\n", f, v, m, a, b }'
}
# checked T OP DTYPE SHAPE: `cutec run OP` under CUTEC_ROWS_TRIAL=T on the GPU, every element
# against float64: its verdict line; false (and "^ FAILED") unless 0 wrong
checked()
{
    CUTEC_ROWS_TRIAL=$1 timeout 10 build/cutec run "$2" --dtype "$3" --shape "$4" >"$out/ln41.run" 2>&1
    echo "trial $1: $(tail -n 1 "$out/ln41.run")"
    grep -q "verified (0 wrong)" "$out/ln41.run" || { echo "   ^ FAILED"; return 1; }
}
# mark GBS: whether a GB/s figure meets issue 16's 3,700
mark() { awk -v g="$1" 'BEGIN { print (g ~ /^[0-9.]+$/ ? (g >= 3700 ? g " (>= 3700)" : g " (short of 3700)") : "-") }'; }
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 (every element) $(el_s)"
        # (262152: the cluster's last part ends 8 elements into its chunks; 32776: hexrow's
        # clusters of 2, the second part's tail chunk 8 elements; 24584, 20004: hexrow, a short
        # tail)
        for c in "bf16 4x262152" "bf16 64x32776" "f16 4x262152" "f16 17x24584" "f32 33x20004"; do
            # shellcheck disable=SC2086 # (the dtype and the shape)
            [ -n "${bad:-}" ] || checked 0 layernorm $c || bad=1
        done
        echo "== the benches $(el_s)"
        pct_of 0 layernorm $L && l0=$pct gl0=$gbs
        pct_of no-tail layernorm $L && ln=$pct gln=$gbs
        pct_of 0 layernorm $S && s0=$pct gs0=$gbs
        pct_of no-tail layernorm $S && sn=$pct gsn=$gbs
        pct_of no-tail layernorm $S && sn2=$pct gsn2=$gbs
        pct_of 0 layernorm $S && s02=$pct gs02=$gbs
        pct_of no-tail layernorm $L && ln2=$pct gln2=$gbs
        pct_of 0 layernorm $L && l02=$pct gl02=$gbs
        DT=f16
        pct_of 0 layernorm $L && f0=$pct
        pct_of no-tail layernorm $L && fn=$pct
        pct_of 0 layernorm $S && g0=$pct
        pct_of no-tail layernorm $S && gn=$pct
        DT=bf16
        pct_of 0 layernorm 16384x4096 && h0=$pct gh0=$gbs
        pct_of 0 rmsnorm $L && r0=$pct gr0=$gbs
        echo "== at $(el) s: % of the copy (GB/s), bf16 two rounds, f16 one:"
        echo "   LayerNorm $L: default ${l0:-} / ${l02:-} (${gl0:-} / ${gl02:-}), no-tail ${ln:-} / ${ln2:-} (${gln:-} / ${gln2:-})"
        echo "   LayerNorm $S: default ${s0:-} / ${s02:-} (${gs0:-} / ${gs02:-}), no-tail ${sn:-} / ${sn2:-} (${gsn:-} / ${gsn2:-})"
        echo "   LayerNorm f16: $L default ${f0:-}, no-tail ${fn:-}; $S default ${g0:-}, no-tail ${gn:-}"
        echo "   LayerNorm 16384x4096 (not the tail's) ${h0:-} (${gh0:-}); RMSNorm $L (the yardstick) ${r0:-} (${gr0:-})"
        echo "   issue 16's 3,700 GB/s (bf16 default): $L $(mark "${gl0:-}") / $(mark "${gl02:-}"); $S $(mark "${gs0:-}") / $(mark "${gs02:-}")"
        if [ -n "${bad:-}" ]; then
            echo "decides: tail: revert (WRONG): a check against float64 above failed"
        else
            decide "tail at $L" "$(diff2 "${l0:-}" "${ln:-}")" "$(diff2 "${l02:-}" "${ln2:-}")"
            decide "tail at $S" "$(diff2 "${s0:-}" "${sn:-}")" "$(diff2 "${s02:-}" "${sn2:-}")"
            for d in "$L $(diff2 "${f0:-}" "${fn:-}")" "$S $(diff2 "${g0:-}" "${gn:-}")"; do
                # shellcheck disable=SC2086 # (the shape and d)
                set -- $d
                awk -v s="$1" -v d="${2:-}" 'BEGIN {
                    if (d == "" || d ~ /W/) { print "decides: tail for f16 at " s ": keep (" (d == "" ? "not timed" : "WRONG") ")"; exit }
                    printf "decides: tail for f16 at %s: %s (%+.2f points)\n", s, d < -1 ? "revert for f16" : "keep", d }'
            done
        fi
    else
        echo "== no GPU here: nothing timed"
        echo "decides: tail at $L: keep (no GPU)"
        echo "decides: tail at $S: keep (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 100
