#!/bin/sh
# The mid pass of branch ln41 on one H200 (issue 16: LayerNorm forward at the memory limit),
# under 50 s after the lead's `make all tests` (nothing is built here); log $OUT/ln41.log.
# The count (bench/RESULTS.md, ln41): LayerNorm's forward at 1024x262144 and 4096x32768 runs
# split parts of 32 KB (hex, hexrow): six blocks of 128 threads an SM, 33,136 / 32,912 bytes of
# shared memory each, which with the runtime's 1 KB a block pass the 196 KB carveout (6 x 34.2
# KB = 205 KB): the SM runs at 228 KB and L1 keeps 28 KB, where the write pass wants weight and
# bias loads in flight of 16 KB a block (96 KB an SM), twice RMSNorm's.  "tail"
# (CUTEC_ROWS_TRIAL=tail; rows_kernel.c's load_tail) stages three of a part's four chunks and
# reads the fourth from global memory in both passes (HBM, then L2): 24,928 / 24,704 bytes a
# block, six an SM in the 164 KB carveout, L1 92 KB, for 8 KB a block more of L2 reads (74
# registers, no spill, where 67 / 69).
# This pass: `cutec run layernorm` under tail on the GPU against float64 (every element), then
# `cutec bench layernorm` default / tail at 1024x262144 and 4096x32768 in two rounds (the
# second reversed), each bench its own process, and RMSNorm's default at 1024x262144 once (the
# yardstick), then, if the budget leaves room, tail7 (the same at seven blocks an SM: 72
# registers, the 196 KB carveout, L1 60 KB) checked and timed once, for the final pass.  No step starts past $BUDGET (50) s, a bench under 8 s (~4.5 each).
# The rule, per shape (points of the copy, d = tail - default, each round's pair): mean d >=
# 0.5 and d > 0 in both rounds -> "make default"; mean d < -0.5 -> "delete"; else "keep
# opt-in"; a failed check or a WRONG row decides "delete (wrong)".  The GB/s against issue 16's
# 3,700 are printed beside.
#   BUDGET=50 ITERS=10 sh scripts/device-ln41.sh
. scripts/device-common.sh
log="$out/ln41.log"
start=$(date +%s)
budget=${BUDGET:-50}
BENCH_TIMEOUT=8
L=1024x262144
S=4096x32768
# pct_of T OP SHAPE: `cutec bench OP --shape SHAPE` under CUTEC_ROWS_TRIAL=T (0: none): its rows,
# the % of the copy into $pct and the GB/s into $gbs ("" skipped or failed, "W" wrong)
pct_of()
{
    echo "-- CUTEC_ROWS_TRIAL=$1 $2 $3"
    CUTEC_ROWS_TRIAL=$1 CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$2" --shape "$3" >"$out/ln41.one" 2>&1
    grep -v "^# \(check\|time\|index\)" "$out/ln41.one"
    pct=$(rows_pct "$out/ln41.one" "$2" fwd "$3")
    gbs=$(awk -v op="$2" -v s="$3" '$1 == op && $2 == "fwd" && $4 == s { print (/WRONG|failed/ ? "W" : $6); exit }' "$out/ln41.one")
}
# decide NAME D1 D2: the rule's line from the two rounds' d
decide()
{
    awk -v f="$1" -v a="$2" -v b="$3" 'BEGIN {
        if (a == "" || b == "" || a ~ /W/ || b ~ /W/) { print "decides: " f ": " (a b ~ /W/ ? "delete (WRONG)" : "keep opt-in (not timed)"); exit }
        m = (a + b) / 2
        v = m >= 0.5 && a > 0 && b > 0 ? "make default" : m < -0.5 ? "delete" : "keep opt-in"
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
        # clusters of 2, the second part's tail chunk 8 elements; f16 24584: hexrow, a short tail)
        checked tail layernorm bf16 4x262152 && checked tail layernorm bf16 64x32776 &&
            checked tail layernorm f16 17x24584 || bad=1
        echo "== the benches $(el_s)"
        pct_of 0 layernorm $L && l0=$pct gl0=$gbs
        pct_of tail layernorm $L && lt=$pct glt=$gbs
        pct_of 0 layernorm $S && s0=$pct gs0=$gbs
        pct_of tail layernorm $S && st=$pct gst=$gbs
        pct_of tail layernorm $S && st2=$pct gst2=$gbs
        pct_of 0 layernorm $S && s02=$pct gs02=$gbs
        pct_of tail layernorm $L && lt2=$pct glt2=$gbs
        pct_of 0 layernorm $L && l02=$pct gl02=$gbs
        pct_of 0 rmsnorm $L && r0=$pct gr0=$gbs
        # (for the final pass, where the budget leaves room: tail at seven blocks an SM, once)
        budget_left && checked tail7 layernorm bf16 4x262152 && pct_of tail7 layernorm $L && l7=$pct gl7=$gbs
        echo "== at $(el) s: % of the copy (GB/s), two rounds:"
        echo "   LayerNorm $L: default ${l0:-} / ${l02:-} (${gl0:-} / ${gl02:-}), tail ${lt:-} / ${lt2:-} (${glt:-} / ${glt2:-})"
        echo "   LayerNorm $S: default ${s0:-} / ${s02:-} (${gs0:-} / ${gs02:-}), tail ${st:-} / ${st2:-} (${gst:-} / ${gst2:-})"
        echo "   RMSNorm $L default (the yardstick): ${r0:-} (${gr0:-}); LayerNorm $L tail7 (once): ${l7:-} (${gl7:-})"
        echo "   issue 16's 3,700 GB/s: tail $L $(mark "${glt:-}") / $(mark "${glt2:-}"); $S $(mark "${gst:-}") / $(mark "${gst2:-}")"
        if [ -n "${bad:-}" ]; then
            echo "decides: tail at $L: delete (wrong): a check against float64 above failed"
            echo "decides: tail at $S: delete (wrong): a check against float64 above failed"
        else
            decide "tail at $L" "$(diff2 "${lt:-}" "${l0:-}")" "$(diff2 "${lt2:-}" "${l02:-}")"
            decide "tail at $S" "$(diff2 "${st:-}" "${s0:-}")" "$(diff2 "${st2:-}" "${s02:-}")"
        fi
    else
        echo "== no GPU here: nothing timed"
        echo "decides: tail at $L: keep opt-in (no GPU)"
        echo "decides: tail at $S: keep opt-in (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 80
