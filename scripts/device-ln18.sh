#!/bin/sh
# The pass of branch ln18 on a GPU machine (issue 16: the forwards at 1024x262144, LayerNorm
# 74.7% of the copy, RMSNorm 85.4%), under 80 s on one H200 after `make all tests`.
# What the default does there: a row is split over a cluster of 8 blocks of 256 threads, each
# staging a 64 KB part (one buffer), three blocks an SM (192 KB); a block loads its part,
# reduces, exchanges with the cluster, writes (LayerNorm reading weight and bias from L2) and
# exits.  So an SM's loads are in flight only while one of its blocks is in its load phase,
# the next row's load waits for a block to exit and for a whole cluster's 8 slots in a GPC,
# and no block has a load of its own in flight during its exchange or write.
# The trial "walk" (CUTEC_ROWS_TRIAL=walk; rows_compile.c's cluster_stage): one block of 512
# threads an SM, three 64 KB buffers of its part (the same 192 KB), a persistent grid of
# clusters walking the rows, and the pipelined exchange (rows_kernel.c's rows_pipelined, what
# the norms' backward got in norms17): while a block reduces row i and writes row i-1 the
# loads of rows i+1 and i+2 are in flight.  sm_90a registers at 262144 (bf16): LayerNorm 67
# -> 96, RMSNorm 56 -> 96, softmax 63 -> 80; no spill.  At 4096x32768 the row is staged in one
# block (no cluster): the trial changes nothing there (timed once as a check).
# First the GPU against float64 with the trial (`cutec run`: every element where M N <= 2^24;
# rows walked several times a block, parts 8 short, f16/f32), then at 1024x262144 LayerNorm
# and RMSNorm default and walk, two turns in reverse order, softmax once each, each bench with
# a device copy of the same bytes in its own run (% of it compared); then LayerNorm with the
# trial beside PyTorch eager, then 4096x32768 default and walk, while the budget lasts.
# The rule (points of the copy, d = walk - default, the mean of the turns), per op:
#   d >= +1.5 -> "make default"; d <= +0.5 -> "delete" (where all three ops say so: the
#   `walks` flag in cluster_stage, the stage_bufs line's `|| walks`, norms_test's walk block;
#   row_plan_persistent's `|| p->stage_bufs > 1` and the carried shift may stay); otherwise
#   "keep opt-in".  The flip, one line in rows_compile.c's cluster_stage:
#   `bool walks = !sums && rows_trial("walk") && ...` -> `bool walks = !sums && ...` (every
#   forward), or `(rows_trial("walk") || <the ops that won>)`; then rows_gpu_test's
#   occupancy check wants (8, 1) for them where it wants (8, 3).
# A WRONG bench line or a failed `cutec run` check -> "keep opt-in (fix it first)".
# Logs under $OUT; no bench starts past $BUDGET seconds (default 60; each at most 18 s).
#   BUDGET=60 ITERS=10 sh scripts/device-ln18.sh
. scripts/device-common.sh
log="$out/ln18.log"
start=$(date +%s)
budget=${BUDGET:-60}
BENCH_TIMEOUT=18
S=1024x262144
# the % of the copy of `cutec bench OP --shape SHAPE` under CUTEC_ROWS_TRIAL=T (0: the
# default) into $pct ("" if it failed or was skipped; "W" if wrong), logged
pct_of()
{
    t=$1 op=$2 s=$3
    echo "-- CUTEC_ROWS_TRIAL=$t $op $s"
    CUTEC_ROWS_TRIAL=$t CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$op" --shape "$s" >"$out/ln18.one" 2>&1
    cat "$out/ln18.one"
    pct=$(awk -v op="$op" '$1 == op && $2 == "fwd" { p = $8; sub("%", "", p); print (/WRONG/ ? "W" : p) }' "$out/ln18.one")
}
diff2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "W" || b == "W") print "W"; else if (a == "" || b == "") print ""; else printf "%.2f", a - b }'; }
mean2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "W" || b == "W") print "W"; else if (a == "" || b == "") print a b; else printf "%.2f", (a + b) / 2 }'; }
# decide OP D: the rule above (D in points; "" not timed, W wrong)
decide()
{
    awk -v op="$1" -v d="$2" 'BEGIN {
        if (d ~ /W/) { print "decides: walk, " op " fwd 1024x262144: keep opt-in (WRONG against float64: fix it first)"; exit }
        if (d == "") { print "decides: walk, " op " fwd 1024x262144: keep opt-in (not timed)"; exit }
        v = d >= 1.5 ? "make default" : d <= 0.5 ? "delete" : "keep opt-in"
        printf "decides: walk, %s fwd 1024x262144: %s (%+.1f points of the copy against the default)\n", op, v, d }'
}
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
        for op in layernorm rmsnorm softmax; do echo "decides: walk, $op fwd 1024x262144: keep opt-in (no GPU)"; done
    else
        echo "== the GPU against float64 under CUTEC_ROWS_TRIAL=walk (every element)"
        for a in "layernorm bf16 64x262144" "layernorm bf16 37x262136" "layernorm f16 16x262152" "layernorm f32 16x131076" \
            "rmsnorm bf16 64x262144" "softmax bf16 40x262136"; do
            set -- $a # (op, dtype, shape)
            CUTEC_ROWS_TRIAL=walk timeout 10 build/cutec run "$1" --dtype "$2" --shape "$3" >"$out/ln18.one" 2>&1
            echo "walk: $(tail -n 1 "$out/ln18.one")"
            grep -q "verified (0 wrong)" "$out/ln18.one" || checked=no
        done
        pct_of 0 layernorm $S && l0a=$pct
        pct_of walk layernorm $S && l1a=$pct
        pct_of 0 rmsnorm $S && r0a=$pct
        pct_of walk rmsnorm $S && r1a=$pct
        pct_of walk rmsnorm $S && r1b=$pct
        pct_of 0 rmsnorm $S && r0b=$pct
        pct_of walk layernorm $S && l1b=$pct
        pct_of 0 layernorm $S && l0b=$pct
        pct_of 0 softmax $S && s0=$pct
        pct_of walk softmax $S && s1=$pct
        echo "== at $(($(date +%s) - start)) s: % of the copy at $S: layernorm fwd default $l0a / $l0b, walk $l1a / $l1b;" \
            "rmsnorm fwd default $r0a / $r0b, walk $r1a / $r1b; softmax fwd default $s0, walk $s1"
        if [ "${checked:-yes}" = no ]; then
            for op in layernorm rmsnorm softmax; do
                echo "decides: walk, $op fwd 1024x262144: keep opt-in (a check against float64 above failed: fix it first)"
            done
        else
            decide layernorm "$(diff2 "$(mean2 "$l1a" "$l1b")" "$(mean2 "$l0a" "$l0b")")"
            decide rmsnorm "$(diff2 "$(mean2 "$r1a" "$r1b")" "$(mean2 "$r0a" "$r0b")")"
            decide softmax "$(diff2 "$s1" "$s0")"
        fi
        echo "== beside PyTorch eager (GB/s in its column), LayerNorm under CUTEC_ROWS_TRIAL=walk"
        CUTEC_ROWS_TRIAL=walk bench_bf16 layernorm --shape $S
        echo "== 4096x32768 (the trial changes no plan there: a check)"
        pct_of 0 layernorm 4096x32768 && echo "default $pct"
        pct_of walk layernorm 4096x32768 && echo "walk $pct"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | grep -v "^# \(check\|time\|index\|  (allowed\)" | tail -n 80
