#!/bin/sh
# A pass of branch ln42's trials on one H200 (issue 16: LayerNorm forward bf16 1024x262144 at
# 3.7 TB/s; session 41: 3,540-3,584 GB/s, 84.7-85.3% of the copy), under 50 s after the
# lead's `make all tests` (nothing is built here); log $OUT/ln42.log.  Two trials of the write
# pass's instructions an element (ln41's diagnosis: seven blocks an SM, and the SM's loads stop
# whenever all seven are past their read phase; LayerNorm's write pass ~10 instructions an
# element against RMSNorm's ~4.5):
#  - whole (CUTEC_ROWS_TRIAL=whole; rows_kernel.c's write_any; the tail plans: 1024x262144
#    and hexrow's 4096x32768): a chunk wholly inside the matrix written by a copy of the
#    chunk's code without predicates (no zero fill before each load, no 64-bit bounds checks,
#    no split store), the row's short last chunk as before.  New;
#  - yfma (CUTEC_ROWS_TRIAL=yfma; layernorm.c, 16-bit inputs, every held-form shape):
#    y = fma(fma(h, rstd, -mean rstd), w, b) where ((h - mean) rstd) w + b took FADD, FMUL,
#    FFMA an element.  ln16's "form" (session 33) rebuilt: +0.3 points then at three 64 KB
#    parts an SM, where it cost 5 registers (67 -> 72 under a bound of 80); on today's seven
#    32 KB parts it costs none (72 -> 72), so it is timed again, on top of whole.
# The count (sm_90a SASS of the emitted CUDA by nvcc -cubin and cuobjdump; the split part's
# write loop at 1024x262144 bf16, one chunk: 32 elements a thread): default 315 instructions,
# yfma 280, whole 252, yfma,whole 220 (6.9 an element); 72 registers each, no spill (seven
# blocks an SM kept; 4096x32768 the same; 16384x4096's row128 76 -> 72 under yfma).
# Predicted (points of the copy): whole 0 to +1.5 at 1024x262144, 0 to +1 at 4096x32768;
# yfma on top of it 0 to +1 (ln16's +0.3).  Modest: the lead's early profile (prof42, ncu,
# /work/notes/mid42/ln42.txt) has LayerNorm at 1024x262144 issuing 63.6% of its slots with
# 169.7 M warp instructions (~20 an element, both passes) where softmax issues 69.8% with
# 165.1 M at 95.5% of the copy: the count is not the bound alone; what LayerNorm has that
# softmax lacks is the columns from L2 (1,648 KB a row into the SMs against 768) and its
# long-scoreboard stalls (4.17 of 9.92 warps an issue).
# This pass: `cutec run layernorm` on the GPU against float64 (every element) under whole
# (bf16 4x262152 and 64x32776: short last chunks) and yfma,whole (bf16 4x262152, 33x4099:
# row128; f16 17x24584, 4x262144), then `cutec bench layernorm` bf16 default / whole /
# yfma,whole at 1024x262144 and 4096x32768 in two rounds (the second reversed), RMSNorm at
# 1024x262144 once (the yardstick), 16384x4096 default / yfma,whole once (whole does not
# apply there: yfma alone), f16 1024x262144 the three once where the budget leaves room.  No
# step starts past $BUDGET (40) s, a bench under 8 s.
# The rule, per shape (points of the copy, d = form - its base, each round's pair): mean d >=
# 0.5 and d > 0 in both rounds -> "wins"; mean d < -0.5 (one round: d < -1) -> "loses";
# else "spread".  whole against the default, yfma (yfma,whole) against whole; per trial:
# "make default" when it wins at 1024x262144 and loses at no shape; "delete" when its mean d
# at 1024x262144 is below 0 or it loses at a shape; else "undecided (time it again)".  A
# failed check or a WRONG row decides "delete (WRONG)" for the trial checked.  GB/s against
# issue 16's 3,700 beside.
#   BUDGET=40 ITERS=10 sh scripts/device-ln42.sh
. scripts/device-common.sh
log="$out/ln42.log"
start=$(date +%s)
budget=${BUDGET:-40}
BENCH_TIMEOUT=8
L=1024x262144
S=4096x32768
R=16384x4096
# pct_of T OP SHAPE: `cutec bench OP --shape SHAPE --dtype $DT` (bf16 unless DT is set) under
# CUTEC_ROWS_TRIAL=T (0: none): its rows, the % of the copy into $pct and the GB/s into $gbs
# ("" skipped or failed, "W" wrong)
pct_of()
{
    echo "-- CUTEC_ROWS_TRIAL=$1 $2 $3 ${DT:-bf16}"
    if budget_left; then
        CUTEC_ROWS_TRIAL=$1 CUTEC_TORCH_ROWS=/dev/null timeout "$BENCH_TIMEOUT" build/cutec bench "$2" --shape "$3" \
            --dtype "${DT:-bf16}" --iters "$iters" >"$out/ln42.one" 2>&1
    else
        echo "== skipped (time)" >"$out/ln42.one"
    fi
    grep -v "^# \(check\|time\|index\|torch\)" "$out/ln42.one"
    pct=$(rows_pct "$out/ln42.one" "$2" fwd "$3")
    gbs=$(awk -v op="$2" -v s="$3" '$1 == op && $2 == "fwd" && $4 == s { print (/WRONG|failed/ ? "W" : $6); exit }' "$out/ln42.one")
}
# verdict SHAPE D1 D2: "wins", "loses", "spread" or "none" (not timed) / "W" from two rounds' d
verdict()
{
    awk -v a="$2" -v b="$3" 'BEGIN {
        if (a ~ /W/ || b ~ /W/) { print "W"; exit }
        if (a == "" && b == "") { print "none"; exit }
        if (a == "" || b == "") { m = (a b) + 0; print (m < -1 ? "loses" : "spread"); exit }
        m = (a + b) / 2
        print (m >= 0.5 && a > 0 && b > 0 ? "wins" : m < -0.5 ? "loses" : "spread") }'
}
# line SHAPE D1 D2: the shape's rule line
line()
{
    awk -v s="$1" -v a="$2" -v b="$3" -v v="$(verdict "$@")" 'BEGIN {
        if (a == "" && b == "") { printf "decides: yfma at %s: not timed\n", s; exit }
        if (a == "" || b == "") { printf "decides: yfma at %s: %s (%+.2f points, one round)\n", s, v, a b; exit }
        printf "decides: yfma at %s: %s (%+.2f points, rounds %+.2f %+.2f)\n", s, v, (a + b) / 2, a, b }'
}
# checked T OP DTYPE SHAPE: `cutec run OP` under CUTEC_ROWS_TRIAL=T on the GPU, every element
# against float64: its verdict line; false (and "^ FAILED") unless 0 wrong
checked()
{
    CUTEC_ROWS_TRIAL=$1 timeout 10 build/cutec run "$2" --dtype "$3" --shape "$4" >"$out/ln42.run" 2>&1
    echo "trial $1: $(tail -n 1 "$out/ln42.run")"
    grep -q "verified (0 wrong)" "$out/ln42.run" || { echo "   ^ FAILED"; return 1; }
}
# mark GBS: whether a GB/s figure meets issue 16's 3,700
mark() { awk -v g="$1" 'BEGIN { print (g ~ /^[0-9.]+$/ ? (g >= 3700 ? g " (>= 3700)" : g " (short of 3700)") : "-") }'; }
# trial NAME BASE_VERDICTS...: "decides: NAME: ..." from the shapes' verdicts (the first:
# 1024x262144's) and 1024x262144's mean d (in $mean_l)
trial()
{
    name=$1
    shift
    vl=$1
    case "$*" in
    *W*) echo "decides: $name: delete (WRONG): a bench row above is WRONG" ;;
    *loses*) echo "decides: $name: delete (a shape loses more than 0.5 points: $*)" ;;
    *)
        if [ "$vl" = wins ]; then
            echo "decides: $name: make default (wins at $L by ${mean_l} points; the shapes: $*)"
        elif awk -v m="$mean_l" 'BEGIN { exit !(m == "" || m < 0) }'; then
            echo "decides: $name: delete (not ahead at $L: ${mean_l:-not timed})"
        else
            echo "decides: $name: undecided (ahead at $L by ${mean_l} points, within the spread: time it again)"
        fi
        ;;
    esac
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 (every element) $(el_s)"
        # (262152: the cluster's last part ends 8 elements into its chunks; 32776: hexrow's
        # clusters of 2, the second part's tail chunk 8 elements; 24584: hexrow, a short tail;
        # 4099: row128's registers, a short last vector)
        for c in "bf16 4x262152" "bf16 64x32776"; do
            # shellcheck disable=SC2086 # (the dtype and the shape)
            [ -n "${bad_w:-}" ] || checked whole layernorm $c || bad_w=1
        done
        for c in "bf16 4x262152" "bf16 33x4099" "f16 17x24584" "f16 4x262144"; do
            # shellcheck disable=SC2086 # (the dtype and the shape)
            [ -n "${bad_y:-}" ] || checked yfma,whole layernorm $c || bad_y=1
        done
        if [ -z "${bad_w:-}" ]; then
            Y=yfma,whole
            [ -z "${bad_y:-}" ] || Y=skip
            echo "== the benches $(el_s)"
            pct_of 0 layernorm $L && l0=$pct gl0=$gbs
            pct_of whole layernorm $L && lw=$pct glw=$gbs
            [ $Y = skip ] || { pct_of $Y layernorm $L && ly=$pct gly=$gbs; }
            pct_of 0 layernorm $S && s0=$pct gs0=$gbs
            pct_of whole layernorm $S && sw=$pct gsw=$gbs
            [ $Y = skip ] || { pct_of $Y layernorm $S && sy=$pct gsy=$gbs; }
            [ $Y = skip ] || { pct_of $Y layernorm $S && sy2=$pct gsy2=$gbs; }
            pct_of whole layernorm $S && sw2=$pct gsw2=$gbs
            pct_of 0 layernorm $S && s02=$pct gs02=$gbs
            [ $Y = skip ] || { pct_of $Y layernorm $L && ly2=$pct gly2=$gbs; }
            pct_of whole layernorm $L && lw2=$pct glw2=$gbs
            pct_of 0 layernorm $L && l02=$pct gl02=$gbs
            pct_of 0 rmsnorm $L && r0=$pct gr0=$gbs
            pct_of 0 layernorm $R && h0=$pct gh0=$gbs
            [ $Y = skip ] || { pct_of $Y layernorm $R && hy=$pct ghy=$gbs; }
            DT=f16
            pct_of 0 layernorm $L && f0=$pct
            pct_of whole layernorm $L && fw=$pct
            [ $Y = skip ] || { pct_of $Y layernorm $L && fy=$pct; }
            DT=bf16
        fi
        echo "== at $(el) s: % of the copy (GB/s), bf16 two rounds (the second reversed):"
        echo "   LayerNorm $L: default ${l0:-} / ${l02:-} (${gl0:-} / ${gl02:-}), whole ${lw:-} / ${lw2:-} (${glw:-} / ${glw2:-}), yfma,whole ${ly:-} / ${ly2:-} (${gly:-} / ${gly2:-})"
        echo "   LayerNorm $S: default ${s0:-} / ${s02:-} (${gs0:-} / ${gs02:-}), whole ${sw:-} / ${sw2:-} (${gsw:-} / ${gsw2:-}), yfma,whole ${sy:-} / ${sy2:-} (${gsy:-} / ${gsy2:-})"
        echo "   LayerNorm $R (once): default ${h0:-} (${gh0:-}), yfma (,whole) ${hy:-} (${ghy:-})"
        echo "   LayerNorm f16 $L (once): default ${f0:-}, whole ${fw:-}, yfma,whole ${fy:-}"
        echo "   RMSNorm $L (the yardstick): ${r0:-} (${gr0:-})"
        echo "   issue 16's 3,700 GB/s at $L: default $(mark "${gl0:-}") / $(mark "${gl02:-}"); whole $(mark "${glw:-}") / $(mark "${glw2:-}"); yfma,whole $(mark "${gly:-}") / $(mark "${gly2:-}")"
        if [ -n "${bad_w:-}" ]; then
            echo "decides: whole: delete (WRONG): a check against float64 above failed"
            echo "decides: yfma: undecided (not timed: whole failed its check)"
        else
            dl1=$(diff2 "${lw:-}" "${l0:-}") dl2=$(diff2 "${lw2:-}" "${l02:-}")
            ds1=$(diff2 "${sw:-}" "${s0:-}") ds2=$(diff2 "${sw2:-}" "${s02:-}")
            df=$(diff2 "${fw:-}" "${f0:-}")
            echo "-- whole against the default:"
            line "$L" "$dl1" "$dl2" | sed 's/yfma at/whole at/'
            line "$S" "$ds1" "$ds2" | sed 's/yfma at/whole at/'
            line "$L f16" "$df" "" | sed 's/yfma at/whole at/'
            mean_l=$(mean2 "$dl1" "$dl2")
            trial whole "$(verdict "$L" "$dl1" "$dl2")" "$(verdict "$S" "$ds1" "$ds2")" "$(verdict "$L" "$df" "")"
            if [ -n "${bad_y:-}" ]; then
                echo "decides: yfma: delete (WRONG): a check against float64 above failed"
            else
                yl1=$(diff2 "${ly:-}" "${lw:-}") yl2=$(diff2 "${ly2:-}" "${lw2:-}")
                ys1=$(diff2 "${sy:-}" "${sw:-}") ys2=$(diff2 "${sy2:-}" "${sw2:-}")
                yh=$(diff2 "${hy:-}" "${h0:-}") yf=$(diff2 "${fy:-}" "${fw:-}")
                echo "-- yfma (yfma,whole against whole; at $R against the default):"
                line "$L" "$yl1" "$yl2"
                line "$S" "$ys1" "$ys2"
                line "$R" "$yh" ""
                line "$L f16" "$yf" ""
                echo "   (yfma,whole against the default at $L: $(diff2 "${ly:-}" "${l0:-}") / $(diff2 "${ly2:-}" "${l02:-}") points)"
                mean_l=$(mean2 "$yl1" "$yl2")
                trial yfma "$(verdict "$L" "$yl1" "$yl2")" "$(verdict "$S" "$ys1" "$ys2")" "$(verdict "$R" "$yh" "")" \
                    "$(verdict "$L" "$yf" "")"
            fi
        fi
    else
        echo "== no GPU here: nothing timed"
        echo "decides: whole: undecided (no GPU)"
        echo "decides: yfma: undecided (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|torch\|  (allowed\)" "$log" | tail -n 100
