#!/bin/sh
# The pass of branch norms17 on a GPU machine (issue 16: the norms' backward at 1024x262144),
# under 80 s on one H200 after `make all tests`.  At 1024x262144 a row is split over a
# cluster of 16 blocks of 512 threads, one an SM, each staging 16384 columns of dy and x
# (64 KB a buffer) and keeping the column sums (dw, db) of those columns over its rows.
# Since norms17 (the mid pass of 2026-11-27 16:56, H200, % of the copy: RMSNorm 59.1 -> 67.2,
# LayerNorm 43.1 -> 55.9; PyTorch eager 1,254 / 1,246 GB/s) the sums lie in registers and the
# part is walked in tiles with sums of their own, two an array (RMSNorm two tiles of 16 values
# a thread, LayerNorm four of 8: no spill at 128 registers), beside three buffers and the
# pipelined exchange; CUTEC_ROWS_SCHEDULE=norms17 gives the form before (the sums in shared
# memory, one tile of 32 values, two buffers; LayerNorm one, so its dw/db by a pass of their
# own: five matrix passes for three).
# First the GPU against float64 (`cutec run --backward`: every element of dx, dw, db where
# M N <= 2^24; rows walked by each block several times through the buffers; a part 8
# elements short of its block), then at 1024x262144 each op's default beside the old form,
# each bench with a device copy of the same bytes in its own run (% of it compared), two
# turns in reverse order; then PyTorch eager beside the defaults at the three shapes while
# the budget lasts.
# The rule (points of the copy, d = default - old form, the mean of the two turns), per op:
# d >= -1 -> "keep default"; d < -2 -> "revert" (the flip: rows_compile.c's cluster_stage,
# `before_norms17 = p->schedule != ROW_SCHEDULE_NOW` -> `= true`, both ops); otherwise
# "keep default (within noise)".  A WRONG bench line or a failed `cutec run` check of the
# default -> "revert" (fix it first).
# Logs under $OUT; no bench starts past $BUDGET seconds (default 70).
#   BUDGET=70 ITERS=10 sh scripts/device-norms17.sh
. scripts/device-common.sh
log="$out/norms17.log"
start=$(date +%s)
budget=${BUDGET:-70}
BENCH_TIMEOUT=20
S=1024x262144
# the % of the copy of `cutec bench OP --backward --shape $S` under CUTEC_ROWS_SCHEDULE=T
# (now: the default) into $pct ("" if it failed or was skipped; "W" if wrong), logged
pct_of()
{
    t=$1 op=$2
    echo "-- CUTEC_ROWS_SCHEDULE=$t $op backward $S"
    CUTEC_ROWS_SCHEDULE=$t CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$op" --backward --shape $S >"$out/norms17.one" 2>&1
    cat "$out/norms17.one"
    pct=$(rows_pct "$out/norms17.one" "$op" bwd "")
}
# decide OP D: the rule above (D in points; "" not timed, W wrong)
decide()
{
    awk -v op="$1" -v d="$2" 'BEGIN {
        if (d ~ /W/) { print "decides: " op " bwd 1024x262144: revert (WRONG against float64)"; exit }
        if (d == "") { print "decides: " op " bwd 1024x262144: keep default (not timed)"; exit }
        v = d >= -1 ? "keep default" : d < -2 ? "revert" : "keep default (within noise)"
        printf "decides: %s bwd 1024x262144: %s (%+.1f points of the copy against CUTEC_ROWS_SCHEDULE=norms17)\n", op, v, d }'
}
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
        echo "decides: rmsnorm bwd 1024x262144: keep default (no GPU)"
        echo "decides: layernorm bwd 1024x262144: keep default (no GPU)"
    else
        echo "== the GPU against float64 (every element)"
        for a in "now rmsnorm bf16 64x262144" "now layernorm bf16 64x262144" "now rmsnorm f16 24x262136" \
            "now layernorm bf16 37x262136" "now layernorm f16 16x262144" "norms17 layernorm bf16 64x262144"; do
            set -- $a # (schedule, op, dtype, shape)
            CUTEC_ROWS_SCHEDULE=$1 timeout 20 build/cutec run "$2" --backward --dtype "$3" --shape "$4" >"$out/norms17.one" 2>&1
            echo "CUTEC_ROWS_SCHEDULE=$1: $(tail -n 1 "$out/norms17.one")"
            grep -q "verified (0 wrong)" "$out/norms17.one" || checked=no
        done
        pct_of now rmsnorm && r0a=$pct
        pct_of norms17 rmsnorm && r1a=$pct
        pct_of now layernorm && l0a=$pct
        pct_of norms17 layernorm && l1a=$pct
        pct_of norms17 layernorm && l1b=$pct
        pct_of now layernorm && l0b=$pct
        pct_of norms17 rmsnorm && r1b=$pct
        pct_of now rmsnorm && r0b=$pct
        echo "== at $(($(date +%s) - start)) s: % of the copy at $S: rmsnorm bwd default $r0a / $r0b, before norms17 $r1a / $r1b;" \
            "layernorm bwd default $l0a / $l0b, before norms17 $l1a / $l1b"
        if [ "${checked:-yes}" = no ]; then
            echo "decides: rmsnorm bwd 1024x262144: revert (a check against float64 above failed: fix it first)"
            echo "decides: layernorm bwd 1024x262144: revert (a check against float64 above failed: fix it first)"
        else
            decide rmsnorm "$(diff2 "$(mean2 "$r0a" "$r0b")" "$(mean2 "$r1a" "$r1b")")"
            decide layernorm "$(diff2 "$(mean2 "$l0a" "$l0b")" "$(mean2 "$l1a" "$l1b")")"
        fi
        echo "== beside PyTorch eager (GB/s in its column), the defaults"
        bench_bf16 rmsnorm --backward
        bench_bf16 layernorm --backward
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | grep -v "^# \(check\|time\|index\|  (allowed\)" | tail -n 80
