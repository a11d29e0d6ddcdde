#!/bin/sh
# The final pass of branch ln41 on one H200 (issue 16: LayerNorm forward at the memory limit),
# under 60 s after the lead's `make all tests` (nothing is built here); log $OUT/ln41.log.
# The count (bench/RESULTS.md, ln41): LayerNorm's forward at 1024x262144 and 4096x32768 runs
# split parts of 32 KB (hex, hexrow), six blocks of 128 threads an SM, 33,136 / 32,912 bytes of
# shared memory each: 228 KB an SM, so no seventh block fits.  The mid pass (H200, 13:52 UTC,
# % of the copy): the part's last chunk read from global memory in both passes, not staged
# ("tail": 24,928 bytes a block, six an SM at 164 KB, L1 92 KB where 28) tied, 80.6 / 80.6
# against 80.6 / 81.2 (4096x32768 88.1 / 87.7 against 88.1 / 88.3): L1 was not the bound, and
# it is deleted; the same parts at seven blocks an SM (tail7, 72 registers, 196 KB) ran 85.2
# once, the first real gain there.  So the blocks an SM are the lever (hex5's five lost 2.4).
# This pass: `cutec run layernorm` under tail7 and tail8 (eight blocks an SM: 64 registers,
# 228 KB; bf16 no spill, f16 20-24 bytes, f32 8) on the GPU against float64 (every element),
# then `cutec bench layernorm` default / tail7 / tail8 at 1024x262144 and 4096x32768 in two
# rounds (the second reversed), each bench its own process, then 16384x4096 default / tail7
# once (its kernel is the same under both: row128's, md5), RMSNorm's default at 1024x262144
# once (the yardstick).  No step starts past $BUDGET (60) s, a bench under 8 s (~2.5-4 each).
# The rule, per form and shape (points of the copy, d = form - default, each round's pair):
# mean d >= 0.5 and d > 0 in both rounds -> "make default"; mean d < -0.5 -> "delete"; else
# "keep opt-in"; a failed check or a WRONG row decides "delete (WRONG)".  Then per shape the
# default: of the forms that "make default" there, the larger mean (none: "the default
# stays").  The GB/s against issue 16's 3,700 are printed beside.
#   BUDGET=60 ITERS=10 sh scripts/device-ln41.sh
. scripts/device-common.sh
log="$out/ln41.log"
start=$(date +%s)
budget=${BUDGET:-60}
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
# decide NAME D1 D2: the rule's line from the two rounds' d; the verdict also into $verdict
# and the mean into $mean
decide()
{
    line=$(awk -v f="$1" -v a="$2" -v b="$3" 'BEGIN {
        if (a == "" || b == "" || a ~ /W/ || b ~ /W/) { print "decides: " f ": " (a b ~ /W/ ? "delete (WRONG)" : "keep opt-in (not timed)"); exit }
        m = (a + b) / 2
        v = m >= 0.5 && a > 0 && b > 0 ? "make default" : m < -0.5 ? "delete" : "keep opt-in"
        printf "decides: %s: %s (%+.2f points, rounds %+.2f %+.2f)\n", f, v, m, a, b }')
    echo "$line"
    verdict=$(echo "$line" | sed 's/^decides: [^:]*: \([a-z -]*\).*/\1/; s/ *$//')
    mean=$(echo "$line" | sed -n 's/.*(\([-+][0-9.]*\) points.*/\1/p')
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
# best SHAPE: the default's line at SHAPE from tail7's and tail8's verdicts and means there
best()
{
    awk -v s="$1" -v v7="$2" -v m7="$3" -v v8="$4" -v m8="$5" 'BEGIN {
        b = ""; bm = 0
        if (v7 == "make default") { b = "tail7"; bm = m7 }
        if (v8 == "make default" && (b == "" || m8 > bm)) { b = "tail8"; bm = m8 }
        print "decides: the default at " s ": " (b == "" ? "the default stays (hex parts, six blocks an SM)" : b " (" sprintf("%+.2f", bm) " points)") }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 (every element) $(el_s)"
        # (262152: the cluster's last part ends 8 elements into its chunks; 32776: hexrow's
        # clusters of 2, the second part's tail chunk 8 elements; 24584, 20004: hexrow, a short
        # tail; f16 and f32 under tail8: its spills)
        for t in tail7 tail8; do
            ok=1
            for c in "bf16 4x262152" "bf16 64x32776" "f16 17x24584" "f32 33x20004"; do
                # shellcheck disable=SC2086 # (the dtype and the shape)
                [ $ok = 1 ] && { checked $t layernorm $c || ok=0; }
            done
            [ $ok = 1 ] || bad="${bad:-} $t"
        done
        echo "== the benches $(el_s)"
        pct_of 0 layernorm $L && l0=$pct gl0=$gbs
        pct_of tail7 layernorm $L && l7=$pct gl7=$gbs
        pct_of tail8 layernorm $L && l8=$pct gl8=$gbs
        pct_of 0 layernorm $S && s0=$pct gs0=$gbs
        pct_of tail7 layernorm $S && s7=$pct gs7=$gbs
        pct_of tail8 layernorm $S && s8=$pct gs8=$gbs
        pct_of tail8 layernorm $S && s82=$pct gs82=$gbs
        pct_of tail7 layernorm $S && s72=$pct gs72=$gbs
        pct_of 0 layernorm $S && s02=$pct gs02=$gbs
        pct_of tail8 layernorm $L && l82=$pct gl82=$gbs
        pct_of tail7 layernorm $L && l72=$pct gl72=$gbs
        pct_of 0 layernorm $L && l02=$pct gl02=$gbs
        pct_of 0 layernorm 16384x4096 && h0=$pct gh0=$gbs
        pct_of tail7 layernorm 16384x4096 && h7=$pct gh7=$gbs
        pct_of 0 rmsnorm $L && r0=$pct gr0=$gbs
        echo "== at $(el) s: % of the copy (GB/s), two rounds:"
        echo "   LayerNorm $L: default ${l0:-} / ${l02:-} (${gl0:-} / ${gl02:-}), tail7 ${l7:-} / ${l72:-} (${gl7:-} / ${gl72:-}), tail8 ${l8:-} / ${l82:-} (${gl8:-} / ${gl82:-})"
        echo "   LayerNorm $S: default ${s0:-} / ${s02:-} (${gs0:-} / ${gs02:-}), tail7 ${s7:-} / ${s72:-} (${gs7:-} / ${gs72:-}), tail8 ${s8:-} / ${s82:-} (${gs8:-} / ${gs82:-})"
        echo "   LayerNorm 16384x4096 (the same kernel under both): default ${h0:-} (${gh0:-}), tail7 ${h7:-} (${gh7:-})"
        echo "   RMSNorm $L default (the yardstick): ${r0:-} (${gr0:-})"
        echo "   issue 16's 3,700 GB/s: $L tail7 $(mark "${gl7:-}") / $(mark "${gl72:-}"), tail8 $(mark "${gl8:-}") / $(mark "${gl82:-}");" \
            "$S tail7 $(mark "${gs7:-}") / $(mark "${gs72:-}"), tail8 $(mark "${gs8:-}") / $(mark "${gs82:-}")"
        # (a form whose check failed: its verdict "delete (wrong)" at both shapes)
        gate() { case " ${bad:-} " in *" $1 "*) echo "W" ;; *) echo "$2" ;; esac; }
        decide "tail7 at $L" "$(gate tail7 "$(diff2 "${l7:-}" "${l0:-}")")" "$(gate tail7 "$(diff2 "${l72:-}" "${l02:-}")")"
        v7=$verdict m7=$mean
        decide "tail8 at $L" "$(gate tail8 "$(diff2 "${l8:-}" "${l0:-}")")" "$(gate tail8 "$(diff2 "${l82:-}" "${l02:-}")")"
        best $L "$v7" "$m7" "$verdict" "$mean"
        decide "tail7 at $S" "$(gate tail7 "$(diff2 "${s7:-}" "${s0:-}")")" "$(gate tail7 "$(diff2 "${s72:-}" "${s02:-}")")"
        v7=$verdict m7=$mean
        decide "tail8 at $S" "$(gate tail8 "$(diff2 "${s8:-}" "${s0:-}")")" "$(gate tail8 "$(diff2 "${s82:-}" "${s02:-}")")"
        best $S "$v7" "$m7" "$verdict" "$mean"
        [ -z "${bad:-}" ] || echo "   (a check against float64 failed under:${bad})"
    else
        echo "== no GPU here: nothing timed"
        for s in $L $S; do
            echo "decides: tail7 at $s: keep opt-in (no GPU)"
            echo "decides: tail8 at $s: keep opt-in (no GPU)"
            echo "decides: the default at $s: the default stays (no GPU)"
        done
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 100
