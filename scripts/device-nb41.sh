#!/bin/sh
# A pass after branch nb41 on one H200 (issue 16: the norms' backward at 3.45 TB/s on
# 16384x4096, 4096x32768 and 1024x262144), under 60 s of GPU work after `make all tests`
# (nothing is built here); log $OUT/nb41.log.
# nb41's forms, the defaults now (bench/RESULTS.md, nb41; docs/reductions.md): sumlanes, the
# column sums' pass with its lanes sized to the partial rows; sumpdl, the pass launched as the
# row kernel's dependent (PDL); rowpdl, the row kernel launched as the dependent of the kernel
# before it; the two PDL forms not where the row kernel is a persistent grid of clusters of two
# blocks an SM (4096x32768, where the three together collapsed in the mid pass: 79.1 -> 62.1).
# Each is left out by CUTEC_ROWS_TRIAL=no-sumlanes / no-sumpdl / no-rowpdl; "before" is all
# three left out (the defaults before nb41).  The final pass (14:18 UTC, % of the copy against
# the default then): sumlanes alone 80.8 -> 84.1, 89.3 -> 92.0 at 1024x262144, 77.7 -> 78.5
# RMSNorm 16384x4096, level elsewhere; the mid pass: all three 81.8 -> 84.1, 78.6 -> 80.7 at
# 16384x4096.
# This pass: `cutec run --backward` of the defaults on the GPU against float64 (dw and db over
# every row, checked again after the timed calls), then single-shape benches, the default and
# "before" in turns (two rounds at 16384x4096 and 4096x32768, one at 1024x262144), and at
# 16384x4096 the default without the PDL forms (their share).  No step starts past $BUDGET
# (60) s.
# The rule (points of the copy, d = default - before, each row's rounds' mean): "keep" with
# d >= -0.5 at every row; "revert at OP SHAPE" for a row below -0.5 (the form to leave out
# there by the plan named in its line); a failed check or a WRONG row: "revert (wrong)".
#   BUDGET=60 ITERS=10 sh scripts/device-nb41.sh
. scripts/device-common.sh
log="$out/nb41.log"
start=$(date +%s)
budget=${BUDGET:-60}
BENCH_TIMEOUT=12
B=no-sumlanes,no-sumpdl,no-rowpdl
# one OP SHAPE FORM: `cutec bench OP --backward --shape SHAPE` under CUTEC_ROWS_TRIAL=FORM; its
# % of the copy appended to $out/nb41-pct ("OP SHAPE FORM PCT", PCT "W" where wrong)
one()
{
    f=$out/nb41-$1-$2-$(echo "$3" | tr , +).one
    echo "-- CUTEC_ROWS_TRIAL=$3 $1 --backward --shape $2 ($(el) s)"
    CUTEC_ROWS_TRIAL=$3 CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$1" --backward --shape "$2" >"$f" 2>&1
    grep -E "^$1|WRONG|rror|skipped" "$f"
    p=$(rows_pct "$f" "$1" bwd "$2")
    [ -n "$p" ] && echo "$1 $2 $3 $p" >>"$out/nb41-pct"
}
# checked OP SHAPE: `cutec run OP --backward` of the defaults on the GPU against float64
checked()
{
    budget_left || { echo "-- skipped (time): run $*"; return 0; }
    timeout 12 build/cutec run "$1" --backward --dtype bf16 --shape "$2" >"$out/nb41.run" 2>&1
    echo "default: $(tail -n 1 "$out/nb41.run")"
    grep -q "verified (0 wrong)" "$out/nb41.run" || { echo "   ^ FAILED"; bad=1; }
}
{
    device_head
    rm -f "$out/nb41-pct"
    bad=
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the GPU against float64 $(el_s)"
        checked layernorm 3001x4096
        checked rmsnorm 301x32776
        checked layernorm 37x262136
        for s in 16384x4096 4096x32768; do
            echo "== $s, two rounds $(el_s)"
            for op in layernorm rmsnorm; do
                one $op $s 0; one $op $s $B; one $op $s $B; one $op $s 0
            done
        done
        echo "== 1024x262144 $(el_s)"
        for op in layernorm rmsnorm; do one $op 1024x262144 0; one $op 1024x262144 $B; done
        echo "== 16384x4096 without the PDL forms $(el_s)"
        for op in layernorm rmsnorm; do one $op 16384x4096 no-sumpdl,no-rowpdl; done
        echo "== at $(el) s: % of the copy"
        touch "$out/nb41-pct"
        awk -v bad="$bad" -v B="$B" '
            { if ($4 == "W") w = 1; n[$1 " " $2, $3]++; s[$1 " " $2, $3] += $4; rows[$1 " " $2] = 1; forms[$3] = 1 }
            END {
                for (r in rows) {
                    line = r; for (f in forms) if (n[r, f]) line = line sprintf("  %s %.2f (%d)", f, s[r, f] / n[r, f], n[r, f])
                    print line
                    if (!n[r, "0"] || !n[r, B]) continue
                    d = s[r, "0"] / n[r, "0"] - s[r, B] / n[r, B]
                    printf "decides: %s: %s (default - before %+.2f points)\n", r, d < -0.5 ? "revert there" : "keep", d
                    if (d < -0.5) lost = 1
                }
                if (bad != "" || w) print "decides: nb41: revert (wrong)"
                else print "decides: nb41: " (lost ? "revert where a row above says so" : "keep")
            }' "$out/nb41-pct" | sort
    else
        echo "== no GPU here: nothing timed"
        echo "decides: nb41: keep (no GPU)"
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\|  (allowed\)" "$log" | tail -n 140
