#!/bin/sh
# The NVFP4 GEMV pass of branch fp4_41 on one H200 (issue 17: (7168,16384,1), (4096,7168,8),
# (7168,2048,4) at 80% of the copy), under 50 s of GPU work after the lead's `make all tests`;
# log $OUT/fp4_41.log.  The count: bench/RESULTS.md, fp4_41; the forms: docs/gemv.md.
# Two trials, each opt-in and each a `cutec bench gemv --forms` word:
# - next (CUTEC_GEMV_NVFP4_NEXT=1): at (4096,7168,8) and (7168,2048,4) the grid is 2,048 and
#   1,792 blocks of 16 rows against 792 slots (132 SMs x 6), 2.59 and 2.26 rounds, and each
#   block after the first round starts with a DRAM round trip for its first k-tiles (at
#   (7168,2048,4) its whole life is one k-tile).  Each warp asks L2 at its start for the first
#   1 KB of its rows (and their scale lines) in the block that takes its slot next.  Nothing
#   to ask at (7168,16384,1), whose 448 blocks are all resident: not timed there.
# - apart (CUTEC_GEMV_NVFP4_APART=1): each 16 bytes of the scale layout hold rows r, r+32,
#   r+64, r+96; with 16 consecutive rows a block, its scale loads bring each 32-byte sector
#   from L2 for a quarter of it (4 x 7.3 MB of SFA beside A's 58.7 MB at (7168,16384,1)).  A
#   block's 4 warps take their rows 32 apart in a scale tile: its sectors read whole.
# This pass: each trial on the GPU against float64 (every element) at odd sizes (next: a
# k-tile at a time, 4100 x 2080, 4 batches, a grid past the slots; apart: one ahead, 4100 x
# 8256, 4 batches, a partial last scale tile), then one process a shape `cutec bench gemv
# --forms lib,next,apart,apart,next,lib` (two rounds, the second reversed; each form's first
# run checked against float64; each row beside a device copy of the same bytes):
# (7168,2048,4), (7168,16384,1) (lib and apart only), (4096,7168,8).
# The rule, per trial (d = form - lib, points of the copy, one a round): a shape "wins" where
# the mean d >= 1 and no pair is below 0, "loses" where the mean d <= -0.5.  A WRONG row or a
# failed check -> "delete"; wins at every shape timed -> "make default"; loses at every shape
# timed -> "delete"; wins somewhere and loses nowhere -> "keep opt-in (wins at ...)"; else
# "keep opt-in".
#   BUDGET_S=38 sh scripts/device-fp4_41.sh;  sh scripts/device-fp4_41.sh decide PAIRS
. scripts/device-common.sh
log="$out/fp4_41.log"
start=$(date +%s) budget=${BUDGET_S:-38} # (no step starts past it: the last, 16 s at most, ends by ~54 s)
# pairs SHAPE FORMS ARGS...: the bench in one process (forms FORMS: rounds of each form once),
# its rows, and "SHAPE FORM d" lines (a form against its round's lib; W for a WRONG row, - for
# a missing one) appended to $out/fp4_41.pairs
pairs()
{
    name=$1 forms=$2
    shift 2
    echo "== $name: $* --forms $forms $(el_s)"
    rows=$(device_gemv "$@" --forms "$forms")
    echo "$rows"
    echo "$rows" | grep -E "%|failed: no time" | awk -v s="$name" -v F="$forms" '
        BEGIN { n = split(F, f, ","); per = 0; for (i = 1; i <= n; i++) if (!(f[i] in d)) { d[f[i]] = 1; per++ } }
        { v = $NF; if (/WRONG/) v = "W"; else if (/failed: no time/) v = "-"; else sub("%", "", v)
          i = NR; r = int((i - 1) / per); val[i] = v; if (f[i] == "lib") lib[r] = v }
        END { for (i = 1; i <= NR && i <= n; i++) {
                  if (f[i] == "lib") continue
                  r = int((i - 1) / per); b = lib[r]; v = val[i]
                  print s, f[i], (b == "W" || v == "W") ? "W" : (b == "" || b == "-" || v == "-") ? "-" : sprintf("%.2f", v - b) } }' \
        >>"$out/fp4_41.pairs"
}
# the rule over a pairs file (lines "SHAPE FORM d")
decide()
{
    awk -v bad="${bad:-}" '
        { k = $2 SUBSEP $1; if (!(k in seen)) { seen[k] = 1; shapes[$2] = shapes[$2] " " $1 }
          forms[$2] = 1
          if ($3 == "W") wrong[$2] = 1
          if ($3 == "W" || $3 == "-") next
          n[k]++; sum[k] += $3; if ($3 < 0) low[k] = 1 }
        END {
            split("next apart", fl, " ")
            for (g = 1; g <= 2; g++) {
                F = fl[g]
                if (!(F in forms)) { printf "decides: %s: keep opt-in (not timed)\n", F; continue }
                m = split(shapes[F], ss, " "); timed = 0; wins = 0; loses = 0; where = ""
                for (i = 1; i <= m; i++) {
                    k = F SUBSEP ss[i]
                    if (!n[k]) { printf "%s %s: no pairs\n", F, ss[i]; continue }
                    mean = sum[k] / n[k]; timed++
                    w = mean >= 1 && !low[k]; l = mean <= -0.5
                    wins += w; loses += l; if (w) where = where " " ss[i]
                    printf "%s %s: %d pairs, mean d %+.2f%s\n", F, ss[i], n[k], mean, w ? " (wins)" : l ? " (loses)" : ""
                }
                if (bad ~ F || (F in wrong)) v = "delete (a WRONG row or a failed check against float64)"
                else if (!timed) v = "keep opt-in (no pairs)"
                else if (wins == timed) v = "make default (wins at every shape timed)"
                else if (loses == timed) v = "delete (loses at every shape timed)"
                else if (wins && !loses) v = "keep opt-in (wins at" where ")"
                else v = "keep opt-in (" wins " wins, " loses " losses of " timed " shapes)"
                printf "decides: %s: %s\n", F, v
            }
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
# checked TRIAL SHAPE BATCH: `cutec run gemv` under the trial's variable on the GPU, every
# element against float64; its verdict line; the trial's name added to $bad unless 0 wrong
checked()
{
    var=CUTEC_GEMV_NVFP4_NEXT what="next slot into L2"
    [ "$1" = apart ] && var=CUTEC_GEMV_NVFP4_APART what="warps 32 rows apart"
    r=$(export "$var=1" && device_gemv_run --dtype nvfp4 --shape "$2" --batch "$3")
    echo "$1: $r"
    echo "$r" | grep -q "$what.*(0 wrong" || bad="${bad:-} $1"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        rm -f "$out/fp4_41.pairs"
        echo "== the trials on the GPU against float64 (every element) $(el_s)"
        checked next 4100x2080 4
        checked apart 4100x8256 4
        GEMV_TIMEOUT=12
        pairs 7168x2048x4 lib,next,apart,apart,next,lib --dtype nvfp4 --shape 7168x2048 --batch 4
        GEMV_TIMEOUT=11
        pairs 7168x16384x1 lib,apart,apart,lib --dtype nvfp4 --shape 7168x16384
        GEMV_TIMEOUT=16
        pairs 4096x7168x8 lib,next,apart,apart,next,lib --dtype nvfp4 --shape 4096x7168 --batch 8
        echo "== pairs (form - lib, points of the copy, one a round) $(el_s)"
        cat "$out/fp4_41.pairs"
        device_end
        echo "== decision (the rule in the header)"
        decide "$out/fp4_41.pairs"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: next: keep opt-in (no GPU)"
        echo "decides: apart: keep opt-in (no GPU)"
    fi
} >"$log" 2>&1
tail -n 70 "$log"
