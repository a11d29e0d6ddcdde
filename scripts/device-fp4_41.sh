#!/bin/sh
# The NVFP4 GEMV's final pass of branch fp4_41 on one H200 (issue 17), under 60 s of GPU work
# after the lead's `make all tests`; log $OUT/fp4_41.log.
# The mid pass (2026-11-28 13:53 UTC, bench/RESULTS.md, fp4_41) measured this branch's two
# trials slower at every shape and they are deleted: the next slot's rows into L2 (-7 to -11
# points) and a block's warps 32 rows apart (-6 to -15: a block's rows in four spans of A
# instead of one).  Two older opt-in forms of the same kind are still in the tree, last timed
# before the scales by bits became the default (session 33) and never since:
# - rows by scale tile (fp4s, `--scale-rows tiled`): a warp's rows r, r+32, r+64, r+96, its
#   scale pairs in one 16-byte load; session 33: +0.5 at (7168,16384,1), -6.7 at (4096,7168,8);
# - 8 rows a warp (fp4h, `--forms 1/8`: one ahead, x decoded for 8 rows, 128 registers); fp4h:
#   in blocks of 4 warps 74.1 against 77.8 at (4096,7168,8), 64.1-68.0 against 73 at
#   (7168,16384,1).
# This pass times both beside the library's at the two shapes of the register forms,
# (7168,16384,1) (two ahead) and (4096,7168,8) (one ahead): four processes a shape, A B B A
# (A: `--forms lib,1/8`, the library's then 8 rows; B: `--scale-rows tiled --forms lib`), each
# form's first run checked against float64 (its rows every 2^24 products), each row beside a
# device copy of the same bytes; (7168,2048,4), a k-tile at a time, takes neither form.
# The rule, per form (d = form - the library's in the same round, points of the copy): slower
# in every pair at both shapes -> "delete"; at least +1 in every pair at both -> "make default";
# else "keep opt-in".  A WRONG row -> "delete".
#   BUDGET_S=48 sh scripts/device-fp4_41.sh;  sh scripts/device-fp4_41.sh decide PAIRS
. scripts/device-common.sh
log="$out/fp4_41.log"
start=$(date +%s) budget=${BUDGET_S:-48} # (no step starts past it; a step 12 s at most)
GEMV_TIMEOUT=12
# one SHAPE ROUND FORM ARGS...: one process's rows; "SHAPE ROUND NAME PCT" lines (W: WRONG, -:
# missing) into $out/fp4_41.rows for each form of FORM ("lib,1/8" or "tiled")
one()
{
    name=$1 round=$2 forms=$3
    shift 3
    echo "== $name round $round: $* $(el_s)"
    rows=$(device_gemv "$@")
    echo "$rows"
    echo "$rows" | grep -E "%|failed: no time|skipped" | awk -v s="$name" -v r="$round" -v F="$forms" '
        BEGIN { n = split(F, f, ",") }
        /skipped/ { exit }
        { v = $NF; if (/WRONG/) v = "W"; else if (/failed: no time/) v = "-"; else sub("%", "", v)
          if (NR <= n) print s, r, f[NR], v }' >>"$out/fp4_41.rows"
}
# the rule over a rows file (lines "SHAPE ROUND NAME PCT")
decide()
{
    awk '{ v[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1] = 1; shapes[++ns] = $1 } if ($2 > rounds) rounds = $2 }
        END {
            split("tiled 1/8", fl, " ")
            for (g = 1; g <= 2; g++) {
                F = fl[g]; all_slower = 1; all_faster = 1; pairs = 0; wrong = 0
                for (i = 1; i <= ns; i++) {
                    S = shapes[i]; line = ""
                    for (r = 1; r <= rounds; r++) {
                        b = v[S, r, "lib"]; x = v[S, r, F]
                        if (b == "W" || x == "W") { wrong = 1; continue }
                        if (b == "" || b == "-" || x == "" || x == "-") continue
                        d = x - b; pairs++; line = line sprintf(" %+.2f", d)
                        if (d >= 0) all_slower = 0
                        if (d < 1) all_faster = 0
                    }
                    printf "%s at %s: d%s\n", F, S, line == "" ? " (none)" : line
                }
                if (wrong) verdict = "delete (a WRONG row)"
                else if (pairs < 4) verdict = "keep opt-in (" pairs " pairs of 4: not enough)"
                else if (all_slower) verdict = "delete (slower in all " pairs " pairs)"
                else if (all_faster) verdict = "make default (at least +1 in all " pairs " pairs)"
                else verdict = "keep opt-in"
                printf "decides: %s: %s\n", F == "tiled" ? "rows by scale tile" : "8 rows a warp", verdict
            }
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        rm -f "$out/fp4_41.rows"
        for s in "7168x16384x1 --shape 7168x16384" "4096x7168x8 --shape 4096x7168 --batch 8"; do
            name=${s%% *} args=${s#* }
            # shellcheck disable=SC2086 # (the shape's arguments: several words)
            {
                one "$name" 1 lib,1/8 --dtype nvfp4 $args --forms lib,1/8
                one "$name" 1 tiled --dtype nvfp4 $args --scale-rows tiled --forms lib
                one "$name" 2 tiled --dtype nvfp4 $args --scale-rows tiled --forms lib
                one "$name" 2 lib,1/8 --dtype nvfp4 $args --forms lib,1/8
            }
        done
        echo "== rows (shape, round, form, % of the copy) $(el_s)"
        cat "$out/fp4_41.rows"
        device_end
        echo "== decision (the rule in the header)"
        decide "$out/fp4_41.rows"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: rows by scale tile: keep opt-in (no GPU)"
        echo "decides: 8 rows a warp: keep opt-in (no GPU)"
    fi
} >"$log" 2>&1
tail -n 70 "$log"
