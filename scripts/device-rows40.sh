#!/bin/sh
# The pass of branch rows40 on one H200 (issue 16: RMSNorm and LayerNorm forward at
# 1024x262144, bf16), under 60 s after the lead's `make all tests` (nothing is built here); log
# $OUT/rows40.log.
# Where they stood (session 39, H200, % of the same run's copy; the issue asks 88): RMSNorm
# 87.0-87.8 (clusters of 8 blocks of 256 threads, 64 KB parts, three an SM, the weight a chunk
# ahead), LayerNorm 80.8-81.2 (clusters of 16 blocks of 128 threads, 32 KB parts, six an SM).
# The count (bench/RESULTS.md, rows40): a 64 KB part's block takes 66,128 bytes of shared
# memory; three an SM with the runtime's 1 KB each pass the 196 KB carveout by 752 bytes, so
# the SM runs at 228 KB and L1 keeps 28 KB, where the write pass's column loads from L2 want
# 48 KB (RMSNorm) to 96 KB (LayerNorm's six blocks) in flight; hex's six 32 KB LayerNorm blocks
# take 228 KB too.  Two trials (rows_compile.c, rows_cluster.c):
#  slim: the cluster exchange's slots sized to the op's stages and values (RMSNorm: 64 bytes
#        where 512): 65,664 bytes a block, three fit 196 KB: L1 60 KB, the plan unchanged
#        (LayerNorm's and softmax's six hex blocks stay over 196 KB);
#  p48:  both norms' parts 48 KB of 256 threads (clusters of 11), three blocks an SM in ~153
#        KB: the 164 KB carveout, L1 92 KB; against it, clusters of 11 pack a GPC's slots
#        worse (~83% against 91%).
# Both assume the driver takes the smallest carveout that holds the blocks (no carveout is
# asked for): a null result for slim may mean it does not.
# Order: `cutec run` of each trial on the GPU against float64 (every element) at odd shapes,
# then 1024x262144: RMSNorm default, slim, p48 and LayerNorm default, p48, then the same in
# reverse.  No step starts past $BUDGET (52) s, a bench under 8 s (one at 1024x262144 takes
# ~5).
# The rule, per trial and op (points of the copy, d = trial - default, each round's pair):
# mean d >= 0.5 and d > 0 in both rounds -> "make default" (p48: p48_parts's `rows_trial("p48")`
# -> true for that op; slim: row_plan_forms's `rows_trial("slim") &&` dropped); mean d < -0.5
# -> "delete"; else "keep opt-in".  A failed check decides "delete (wrong)".
#   BUDGET=52 ITERS=10 sh scripts/device-rows40.sh
. scripts/device-common.sh
log="$out/rows40.log"
start=$(date +%s)
budget=${BUDGET:-52}
BENCH_TIMEOUT=8
L=1024x262144
# pct_of T OP: the % of the copy of `cutec bench OP --shape $L` under CUTEC_ROWS_TRIAL=T (0:
# none) into $pct ("" skipped or failed, "W" wrong)
pct_of()
{
    rows_trial_bench rows40 "$1" "$2" $L plain
    pct=$(rows_pct "$out/rows40.one" "$2" "" $L)
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
# checked T OP DTYPE SHAPE [ARG]: `cutec run OP` under CUTEC_ROWS_TRIAL=T on the GPU, every
# element against float64: its verdict line; false (and "^ FAILED") unless 0 wrong
checked()
{
    # shellcheck disable=SC2086 # (no 5th: no argument)
    CUTEC_ROWS_TRIAL=$1 timeout 10 build/cutec run "$2" --dtype "$3" --shape "$4" ${5:-} >"$out/rows40.run" 2>&1
    echo "trial $1: $(tail -n 1 "$out/rows40.run")"
    grep -q "verified (0 wrong)" "$out/rows40.run" || { echo "   ^ FAILED"; return 1; }
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 (every element) $(el_s)"
        checked p48 rmsnorm bf16 4x262152 && checked p48 layernorm bf16 4x262152 || badp=1
        checked slim rmsnorm bf16 4x262152 && checked slim layernorm bf16 9x70000 --backward || bads=1
        echo "== the benches $(el_s)"
        pct_of 0 rmsnorm && r0=$pct
        pct_of slim rmsnorm && rs=$pct
        pct_of p48 rmsnorm && r1=$pct
        pct_of 0 layernorm && l0=$pct
        pct_of p48 layernorm && l1=$pct
        pct_of p48 layernorm && l12=$pct
        pct_of 0 layernorm && l02=$pct
        pct_of p48 rmsnorm && r12=$pct
        pct_of slim rmsnorm && rs2=$pct
        pct_of 0 rmsnorm && r02=$pct
        echo "== at $(el) s: % of the copy at $L: RMSNorm default $r0 / $r02, slim $rs / $rs2, p48 $r1 / $r12;" \
            "LayerNorm default $l0 / $l02, p48 $l1 / $l12"
        if [ -n "${bads:-}" ]; then
            echo "decides: slim for RMSNorm: delete (wrong): a check against float64 above failed"
        else
            decide "slim for RMSNorm" "$(diff2 "$rs" "$r0")" "$(diff2 "$rs2" "$r02")"
        fi
        if [ -n "${badp:-}" ]; then
            echo "decides: p48 for RMSNorm: delete (wrong): a check against float64 above failed"
            echo "decides: p48 for LayerNorm: delete (wrong): a check against float64 above failed"
        else
            decide "p48 for RMSNorm" "$(diff2 "$r1" "$r0")" "$(diff2 "$r12" "$r02")"
            decide "p48 for LayerNorm" "$(diff2 "$l1" "$l0")" "$(diff2 "$l12" "$l02")"
        fi
    else
        echo "== no GPU here: nothing timed"
        echo "decides: slim for RMSNorm: keep opt-in (no GPU)"
        echo "decides: p48 for RMSNorm: keep opt-in (no GPU)"
        echo "decides: p48 for LayerNorm: keep opt-in (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 80
