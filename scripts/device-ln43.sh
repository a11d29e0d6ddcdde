#!/bin/sh
# The extra pass of branch ln43 on one H200 (issue 16: LayerNorm forward bf16 1024x262144 at
# 3.7 TB/s; 3,554-3,574 GB/s, 84.6-85.3% of the copy, in ln43's passes), under 50 s of GPU work
# after the lead's `make all tests` (nothing is built here); log $OUT/ln43.log.
# Every form ln43 built was measured slower and is deleted (bench/RESULTS.md, ln43).  The
# third pass (19:37 UTC) measured with the diagnostic CUTEC_ROWS_DIAG=nocols (wrong by design:
# weight and bias taken as 1, never loaded) what LayerNorm's column loads cost: 93.4 / 93.5% of
# the copy at 1024x262144 against 84.6 / 85.0 (8.65 points), 91.4 against 90.0 at 4096x32768;
# and that clusters of 16 leave SMs idle (sm__cycles_active least 0; clusters of 2 and none:
# 251,744 and 122,922).  This pass splits those 8.65 points, for the next engineer:
#  - nobias: the bias taken as 1, the weight loaded (17 LDG where 25): half the column bytes
#    and loads, each chunk still waiting on the weight's L2 round trip;
#  - cols0: every chunk's weight and bias loaded from the row's first chunk's (the same 25
#    LDG and 1,744 sm_90a instructions where 1,752, served by L1 where L2): the loads without
#    their L2 round trip and traffic.
# `cutec bench layernorm` bf16 at 1024x262144 default / nocols / nobias / cols0, twice, each
# its own process (the diagnostics' rows WRONG by design, their % read all the same); then,
# where the budget leaves room, ncu of one cols0 launch (L1's hit rate, the stalls on loads).
# No step starts past $BUDGET (40) s.
# It decides nothing of the code (no form): it prints each diagnostic's gain over the default
# (the mean of two rounds) and reads them: "the round trip" when cols0 wins back at least 70%
# of nocols's gain, "the loads themselves" when it wins back under 30%, else "both"; and
# "bytes" when nobias wins back 35-65% of nocols's, "latency" when under 35% (one load a chunk
# waited on costs about what two do), else "undecided".  (Its run at 19:53 UTC printed this
# rule written backwards, "latency" over 65%: nobias won back -12%, latency; bench/RESULTS.md.)
#   BUDGET=40 ITERS=10 sh scripts/device-ln43.sh
. scripts/device-common.sh
log="$out/ln43.log"
start=$(date +%s)
budget=${BUDGET:-40}
BENCH_TIMEOUT=8
L=1024x262144
# raw_pct SHAPE: the % of the copy of LayerNorm's forward row at SHAPE in the last bench, WRONG
# or not (a diagnostic's rows are WRONG by design)
raw_pct() { awk -v s="$1" '$1 == "layernorm" && $2 == "fwd" && $4 == s { p = $8; sub("%", "", p); print p; exit }' "$out/ln43.one"; }
# diag D: a bench at $L under CUTEC_ROWS_DIAG=D (none: the default), its rows; its % in $pct
diag()
{
    if [ "$1" = none ]; then rows_trial_bench ln43 0 layernorm $L; else rows_trial_bench ln43 0 layernorm $L "CUTEC_ROWS_DIAG=$1" "CUTEC_ROWS_DIAG=$1"; fi
    # shellcheck disable=SC2034 # (read through eval)
    pct=$(raw_pct $L)
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        for r in 1 2; do
            for d in none nocols nobias cols0; do
                echo "-- round $r, CUTEC_ROWS_DIAG=$d $(el_s)"
                diag $d
                eval "p_${d}_$r=\$pct"
            done
        done
        echo "== at $(el) s: % of the copy, LayerNorm bf16 $L: default ${p_none_1:-} / ${p_none_2:-}, nocols ${p_nocols_1:-} / ${p_nocols_2:-}, nobias ${p_nobias_1:-} / ${p_nobias_2:-}, cols0 ${p_cols0_1:-} / ${p_cols0_2:-}"
        awk -v d1="${p_none_1:-}" -v d2="${p_none_2:-}" -v n1="${p_nocols_1:-}" -v n2="${p_nocols_2:-}" \
            -v b1="${p_nobias_1:-}" -v b2="${p_nobias_2:-}" -v c1="${p_cols0_1:-}" -v c2="${p_cols0_2:-}" 'BEGIN {
            if (d1 == "" || d2 == "" || n1 == "" || n2 == "" || b1 == "" || b2 == "" || c1 == "" || c2 == "") {
                print "decides: the columns: undecided (a figure missing)"; exit }
            d = (d1 + d2) / 2; n = (n1 + n2) / 2 - d; b = (b1 + b2) / 2 - d; c = (c1 + c2) / 2 - d
            printf "-- over the default: nocols %+.2f, nobias %+.2f, cols0 %+.2f points\n", n, b, c
            if (n < 1) { print "decides: the columns: undecided (nocols under 1 point this time)"; exit }
            rc = c / n; rb = b / n
            printf "decides: the columns: %s (cols0 wins back %.0f%% of nocols)\n", (rc >= 0.7 ? "the round trip" : (rc < 0.3 ? "the loads themselves" : "both")), 100 * rc
            printf "decides: the columns: %s (nobias wins back %.0f%% of nocols)\n", (rb < 0.35 ? "latency" : (rb <= 0.65 ? "bytes" : "undecided")), 100 * rb }'
        if budget_left && command -v ncu >/dev/null 2>&1; then
            echo "-- ncu CUTEC_ROWS_DIAG=cols0 layernorm $L $(el_s)"
            CUTEC_ROWS_DIAG=cols0 CUTEC_TORCH_ROWS=/dev/null timeout 10 ncu --clock-control none --cache-control all --kernel-name-base function \
                -k regex:rows_kernel --launch-skip 2 --launch-count 1 --metrics \
                gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
                build/cutec bench layernorm --shape $L --dtype bf16 --iters 3 >"$out/ln43-ncu-cols0.txt" 2>&1
            grep -E "__|==ERR" "$out/ln43-ncu-cols0.txt" | awk '{ print "   " $1, $NF }'
        fi
    else
        echo "== no GPU here: nothing timed"
        echo "decides: the columns: undecided (no GPU)"
    fi
    device_end
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|torch\|  (allowed\)" "$log" | tail -n 100
