#!/bin/sh
# The pass of branch ln16 on a GPU machine (issue 16: LayerNorm forward at 1024x262144, 74.7%
# of the copy where RMSNorm runs 85.4), under 80 s on one H200 after `make all tests`.
# Two trials, opt-in under CUTEC_ROWS_TRIAL (rows_compile.c's row_plan_forms):
#  form:  LayerNorm's forward y = h rstd + (-mean rstd) by one FMA an element, then
#         fma(y, w, b), where (h - mean) rstd took an add and a multiply (layernorm.c's
#         fma_finish; every shape where a block holds its row or part).  Why: at 262144 a
#         cluster part's write pass took ~10 instructions an element, the stage walk ~6.5
#         (sm_90a SASS), and rows9's ncu had 57% of the issue slots used there; RMSNorm's two
#         walks take ~4.5 + ~4.  One FMA an element is 32 of the write loop's ~290 an chunk.
#  ahead: a cluster's staged part issues its first write chunk's weight and bias loads (L2)
#         before the row's staged wait (rows_kernel.c's write_ahead): rows9's ncu put 11.5% of
#         the stall samples at 262144 on their first uses.  80 registers, no spill (each chunk
#         a chunk ahead spilled 288 bytes: not built).
# First the GPU against float64 (`cutec run`: every element where M N <= 2^24; odd parts of a
# cluster, a held row, a staged row; both trials on), then each shape's default beside the
# trials, each bench with a device copy of the same bytes in its own run (% of it compared),
# at 262144 twice in turns (the second turn last: a bench past the budget is skipped); then
# the trials beside PyTorch eager at 262144.  ~4 s a bench of one shape, ~8 s the last.
# The rule (points of the copy, d = trial - default; at 262144 the mean of the two turns):
#  form:  d262144 >= 1.5 and neither d32768 nor d4096 below -1 -> "make default" (the flip:
#         rows_compile.c's row_plan_forms, drop `rows_trial("form") &&`); d262144 <= 0.5 ->
#         "delete" (layernorm.c's fma_finish, layernorm_fwd_fma, the trial_form field);
#         otherwise "keep opt-in" (to be timed again);
#  ahead: the same at 262144 alone, with both trials on against form alone where form is made
#         the default (the flip: drop `rows_trial("ahead") &&` there; delete: write_ahead,
#         row_plan.cols_ahead, row_cols's ahead).
# A bench's WRONG line decides "delete" for its form; a failed `cutec run` check (both trials
# on) keeps both opt-in, to be fixed first.  Logs under
# $OUT; nothing starts past $BUDGET seconds (default 64).  BUDGET=64 ITERS=10 sh scripts/device-ln16.sh
. scripts/device-common.sh
log="$out/ln16.log"
start=$(date +%s)
budget=${BUDGET:-64}
BENCH_TIMEOUT=20
# the % of the copy of `cutec bench layernorm --shape S` under CUTEC_ROWS_TRIAL=T (0: default)
# into $pct ("" if it failed or was skipped; "W" if wrong), the bench's lines into the log
pct_of()
{
    t=$1 s=$2
    echo "-- CUTEC_ROWS_TRIAL=$t layernorm $s"
    CUTEC_ROWS_TRIAL=$t CUTEC_TORCH_ROWS=/dev/null bench_bf16 layernorm --shape "$s" >"$out/ln16.one" 2>&1
    cat "$out/ln16.one"
    pct=$(awk '$1 == "layernorm" && $2 == "fwd" { p = $8; sub("%", "", p); print (/WRONG/ ? "W" : p) }' "$out/ln16.one")
}
# decide NAME D_MAIN D_OTHER...: the rule above on the differences (points; "" = not timed)
decide()
{
    name=$1 main=$2 && shift 2
    echo "$*" | awk -v name="$name" -v main="$main" '{
        if (main ~ /W/ || $0 ~ /W/) { print "decides: " name ": delete (WRONG against float64)"; exit }
        if (main == "") { print "decides: " name ": keep opt-in (not timed)"; exit }
        worst = 0; for (i = 1; i <= NF; i++) if ($i < worst) worst = $i
        if (main >= 1.5 && worst >= -1) v = "make default"; else if (main <= 0.5) v = "delete"; else v = "keep opt-in"
        printf "decides: %s: %s (%+.1f points at 1024x262144, worst elsewhere %+.1f)\n", name, v, main, worst }'
}
diff2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "W" || b == "W") print "W"; else if (a == "" || b == "") print ""; else printf "%.2f", a - b }'; }
mean2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "W" || b == "W") print "W"; else if (a == "" || b == "") print a b; else printf "%.2f", (a + b) / 2 }'; }
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
        echo "decides: form: keep opt-in (no GPU)"
        echo "decides: ahead: keep opt-in (no GPU)"
    else
        echo "== the GPU against float64, both trials on (every element)"
        for a in "bf16 24x262152" "f16 8x262152" "bf16 64x32776" "bf16 512x4104" "f32 16x131076"; do
            set -- $a # (two words: the dtype, the shape)
            CUTEC_ROWS_TRIAL=1 timeout 20 build/cutec run layernorm --dtype "$1" --shape "$2" >"$out/ln16.one" 2>&1
            tail -n 1 "$out/ln16.one"
            grep -q "verified (0 wrong)" "$out/ln16.one" || checked=no
        done
        S=1024x262144
        pct_of 0 $S && d1=$pct
        pct_of form $S && f1=$pct
        pct_of 1 $S && b1=$pct
        pct_of ahead $S && a1=$pct
        pct_of 0 4096x32768 && d3=$pct
        pct_of form 4096x32768 && f3=$pct
        pct_of 0 16384x4096 && d4=$pct
        pct_of form 16384x4096 && f4=$pct
        pct_of ahead $S && a2=$pct
        pct_of 1 $S && b2=$pct
        pct_of form $S && f2=$pct
        pct_of 0 $S && d2=$pct
        echo "== at $(($(date +%s) - start)) s: % of the copy: 262144 default $d1 / $d2, form $f1 / $f2, ahead $a1 / $a2, both $b1 / $b2; 32768 $d3 -> $f3; 4096 $d4 -> $f4"
        d=$(mean2 "$d1" "$d2") f=$(mean2 "$f1" "$f2") a=$(mean2 "$a1" "$a2") b=$(mean2 "$b1" "$b2")
        if [ "${checked:-yes}" = no ]; then
            echo "decides: form: keep opt-in (a check against float64 above failed: fix it first)"
            echo "decides: ahead: keep opt-in (a check against float64 above failed: fix it first)"
        else
            decide form "$(diff2 "$f" "$d")" "$(diff2 "$f3" "$d3")" "$(diff2 "$f4" "$d4")" | tee "$out/ln16.form"
            if grep -q "make default" "$out/ln16.form"; then
                decide ahead "$(diff2 "$b" "$f")"
            else
                decide ahead "$(diff2 "$a" "$d")"
            fi
        fi
        echo "== beside PyTorch eager (GB/s in its column), both trials on"
        CUTEC_ROWS_TRIAL=1 bench_bf16 layernorm --shape $S
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | grep -v "^# \(check\|time\|index\|  (allowed\)" | tail -n 80
