#!/bin/sh
# The final pass of branch nb41 on one H200 (issue 16: the norms' backward at 3.45 TB/s on
# 16384x4096, 4096x32768 and 1024x262144), under 60 s of GPU work after the lead's `make all
# tests` (nothing is built here); log $OUT/nb41.log.
# The trials (CUTEC_ROWS_TRIAL; bench/RESULTS.md, nb41): sumlanes, the column sums' pass with
# its lanes sized to the partial rows (every row of a thread in flight at once); sumpdl, the
# pass launched as the row kernel's dependent (PDL, let in at the row kernel's start); rowpdl,
# the row kernel launched as the dependent of the kernel before it (the last call's pass).
# The mid pass (13:52 UTC, H200, % of the copy, default -> all three): LayerNorm 81.8 -> 84.1,
# 79.1 -> 62.1 (and 79.1 -> 62.3), 80.7 -> 84.8; RMSNorm 78.6 -> 80.7 (78.4 -> 80.9), 87.1 ->
# 63.1, 89.6 -> 92.3: a collapse at 4096x32768 only, the one plan whose persistent grid is of
# clusters of 8 at two blocks an SM (30 clusters, 120 of 132 SMs).  This pass finds which form
# collapses it and which win where: `cutec run --backward` under each form on the GPU against
# float64 (dw and db over every row, after the timed calls too), then single-shape benches,
# the default first in each group:
#   A 4096x32768: LayerNorm and RMSNorm, default / sumlanes / sumpdl / sumpdl,rowpdl
#     (rowpdl alone changes little: without sumpdl the pass before it lets it in at its end);
#   B 16384x4096: default / sumlanes / sumpdl,rowpdl;
#   C 1024x262144: default / sumlanes;
#   then, if the budget allows, sumpdl alone at 16384x4096.
# No step starts past $BUDGET (60) s (~2-4 s a bench; the mid pass: 3 s at 4096x32768, 2 s
# at 16384x4096).
# The rule (points of the copy, d = form - its group's default, one round): a row is "ahead"
# with d >= 0.5, "behind" with d < -0.5, else "level".  For each form: "make default" if it is
# ahead somewhere and behind nowhere; "delete" if it is ahead nowhere; else "default where
# ahead only by a rule the plan can state" (named in the line, e.g. plans without clusters),
# left to nb41 with these rows.  A failed check or a WRONG row decides "delete (wrong)" for
# its form.
#   BUDGET=60 ITERS=10 sh scripts/device-nb41.sh
. scripts/device-common.sh
log="$out/nb41.log"
start=$(date +%s)
budget=${BUDGET:-60}
BENCH_TIMEOUT=12
FORMS="0 sumlanes sumpdl sumpdl,rowpdl"
# one OP SHAPE FORM: `cutec bench OP --backward --shape SHAPE` under CUTEC_ROWS_TRIAL=FORM; its
# % of the copy into $out/nb41-pct ("OP SHAPE FORM PCT", PCT "W" where wrong)
one()
{
    f=$out/nb41-$1-$2-$(echo "$3" | tr , +).one
    echo "-- CUTEC_ROWS_TRIAL=$3 $1 --backward --shape $2 ($(el) s)"
    CUTEC_ROWS_TRIAL=$3 CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$1" --backward --shape "$2" >"$f" 2>&1
    grep -E "^$1|WRONG|rror|skipped" "$f"
    p=$(rows_pct "$f" "$1" bwd "$2")
    [ -n "$p" ] && echo "$1 $2 $3 $p" >>"$out/nb41-pct"
}
# checked FORM OP SHAPE: `cutec run OP --backward` on the GPU against float64; else the form
# is noted wrong
checked()
{
    budget_left || { echo "-- skipped (time): run $*"; return 0; }
    CUTEC_ROWS_TRIAL=$1 timeout 12 build/cutec run "$2" --backward --dtype bf16 --shape "$3" >"$out/nb41.run" 2>&1
    echo "form $1: $(tail -n 1 "$out/nb41.run")"
    grep -q "verified (0 wrong)" "$out/nb41.run" || { echo "   ^ FAILED"; echo "$1" >>"$out/nb41-wrong"; }
}
{
    device_head
    rm -f "$out/nb41-pct" "$out/nb41-wrong"
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 $(el_s)"
        checked sumlanes layernorm 3001x4096
        checked sumpdl rmsnorm 301x32776
        checked sumpdl,rowpdl layernorm 301x32776
        echo "== group A 4096x32768 $(el_s)"
        for op in layernorm rmsnorm; do
            for f in $FORMS; do one $op 4096x32768 "$f"; done
        done
        echo "== group B 16384x4096 $(el_s)"
        for op in layernorm rmsnorm; do
            for f in 0 sumlanes sumpdl,rowpdl; do one $op 16384x4096 "$f"; done
        done
        echo "== group C 1024x262144 $(el_s)"
        for op in layernorm rmsnorm; do
            for f in 0 sumlanes; do one $op 1024x262144 $f; done
        done
        echo "== group B 16384x4096, sumpdl alone (if the budget allows) $(el_s)"
        for op in layernorm rmsnorm; do one $op 16384x4096 sumpdl; done
        echo "== at $(el) s: % of the copy by form (d against the group's default)"
        touch "$out/nb41-pct" "$out/nb41-wrong"
        awk -v wrongs="$(tr '\n' ' ' <"$out/nb41-wrong")" '
            { pct[$1, $2, $3] = $4; if ($3 != "0") { forms[$3] = 1; rows[$1 " " $2 " " $3] = 1 } }
            END {
                for (r in rows) {
                    split(r, k, " "); b = pct[k[1], k[2], "0"]; v = pct[k[1], k[2], k[3]]
                    if (v == "W" || b == "W") { w[k[3]] = 1; printf "decides: %s %s %s: WRONG\n", k[1], k[2], k[3]; continue }
                    if (b == "") continue
                    d = v - b; verdict = d >= 0.5 ? "ahead" : d < -0.5 ? "behind" : "level"
                    printf "decides: %s %s %s: %s (%.1f against %.1f: %+.2f points)\n", k[1], k[2], k[3], verdict, v, b, d
                    if (verdict == "ahead") { up[k[3]]++; where_up[k[3]] = where_up[k[3]] " " k[1] "@" k[2] }
                    if (verdict == "behind") { dn[k[3]]++; where_dn[k[3]] = where_dn[k[3]] " " k[1] "@" k[2] }
                }
                for (f in forms) {
                    if (w[f] || index(" " wrongs, " " f " ")) { printf "decides: %s: delete (wrong)\n", f; continue }
                    v = !up[f] ? "delete" : !dn[f] ? "make default" : "default where ahead only, by a rule of the plan"
                    printf "decides: %s: %s (ahead:%s; behind:%s)\n", f, v, up[f] ? where_up[f] : " none", dn[f] ? where_dn[f] : " none"
                }
            }' "$out/nb41-pct" | sort
    else
        echo "== no GPU here: nothing timed"
        for f in $FORMS; do [ "$f" = 0 ] || echo "decides: $f: keep opt-in (no GPU)"; done
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 140
