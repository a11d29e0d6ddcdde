#!/bin/sh
# The NVFP4 GEMV pass of branch fp4_41 on one H200 (issue 17: (7168,16384,1), (4096,7168,8),
# (7168,2048,4) at 80% of the copy), under 50 s of GPU work after the lead's `make all tests`;
# log $OUT/fp4_41.log.
# The count (bench/RESULTS.md, fp4_41): at (4096,7168,8) and (7168,2048,4) the grid is 2,048 and
# 1,792 blocks of 16 rows against 792 slots (132 SMs x 6): 2.59 and 2.26 rounds, and every block
# of the second and third rounds starts with a DRAM round trip for its first k-tiles (at
# (7168,2048,4) a block's whole life is one k-tile: that trip is most of it).  The trial
# CUTEC_GEMV_NVFP4_NEXT=1 (`--forms next`): each warp asks L2 at its start for the first 1 KB of
# each row (and their first 2,048 elements' scale groups) of the block that takes its slot next
# (the block 132 x 6 on, or x 4 two ahead), so that block's first loads meet L2.
# (7168,16384,1) has 448 blocks, all resident at once: nothing to prefetch there (the control).
# This pass: the trial on the GPU against float64 (every element) at odd sizes whose grids pass
# the slots (a k-tile at a time 4100 x 2080, 4 batches; one ahead 4100 x 8256, 4 batches), then
# one process a shape `cutec bench gemv --forms lib,next,...` (the library's and the trial in
# turns, each form's first run checked against float64, each row beside a device copy of the
# same bytes): (7168,2048,4) and (4096,7168,8) three rounds, (7168,16384,1) two.
# The rule (d = next - lib, points of the copy, a round's pair): at both (7168,2048,4) and
# (4096,7168,8) a mean d >= 1 and no pair below 0, and (7168,16384,1) not below -1 -> "make
# default" (nvfp4.c: next_sms set without the variable); a WRONG row or a failed check, or a
# mean d <= -0.5 at either -> "delete"; else "keep opt-in".
#   BUDGET_S=50 sh scripts/device-fp4_41.sh
. scripts/device-common.sh
log="$out/fp4_41.log"
start=$(date +%s) budget=${BUDGET_S:-50}
# pairs SHAPE ROUNDS ARGS...: the bench in one process, its rows, and "SHAPE d1 d2 ..." (next -
# lib a round; W for a WRONG row) appended to $out/fp4_41.pairs
pairs()
{
    name=$1 rounds=$2
    shift 2
    forms=lib,next k=1
    while [ $k -lt "$rounds" ]; do forms="$forms,lib,next" k=$((k + 1)); done
    echo "== $name: $* --forms $forms $(el_s)"
    rows=$(device_gemv "$@" --forms "$forms")
    echo "$rows"
    echo "$rows" | grep -E "%|failed: no time" | awk -v s="$name" '
        { v = $NF; if (/WRONG/) v = "W"; else if (/failed: no time/) v = ""; else sub("%", "", v)
          if (NR % 2) lib = v; else d = d " " (lib == "W" || v == "W" ? "W" : lib == "" || v == "" ? "-" : sprintf("%.2f", v - lib)) }
        END { print s d }' >>"$out/fp4_41.pairs"
}
# the rule over the pairs file (lines "SHAPE d1 d2 ...")
decide()
{
    awk -v bad="${bad:-}" '
        { n[$1] = 0; sum[$1] = 0; low[$1] = 0
          for (i = 2; i <= NF; i++) { if ($i == "W") wrong = 1; if ($i == "W" || $i == "-") continue
                                      n[$1]++; sum[$1] += $i; if ($i < 0) low[$1] = 1 } }
        function mean(s) { return n[s] ? sum[s] / n[s] : "" }
        END {
            split("7168x2048x4 4096x7168x8 7168x16384x1", s, " ")
            for (i = 1; i <= 3; i++)
                printf "%s: %d pairs, mean d %s\n", s[i], n[s[i]], n[s[i]] ? sprintf("%+.2f", mean(s[i])) : "(none)"
            if (bad != "" || wrong) { print "decides: next: delete (a WRONG row or a failed check against float64)"; exit }
            if (!n[s[1]] || !n[s[2]]) { print "decides: next: keep opt-in (not timed at both small shapes)"; exit }
            if (mean(s[1]) <= -0.5 || mean(s[2]) <= -0.5) { printf "decides: next: delete (mean d %+.2f / %+.2f)\n", mean(s[1]), mean(s[2]); exit }
            ok = mean(s[1]) >= 1 && mean(s[2]) >= 1 && !low[s[1]] && !low[s[2]] && (!n[s[3]] || mean(s[3]) >= -1)
            printf "decides: next: %s (mean d %+.2f / %+.2f at the small shapes, control %s)\n",
                ok ? "make default" : "keep opt-in", mean(s[1]), mean(s[2]), n[s[3]] ? sprintf("%+.2f", mean(s[3])) : "not timed"
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        rm -f "$out/fp4_41.pairs"
        echo "== the trial on the GPU against float64 (every element) $(el_s)"
        for a in "4100x2080 --batch 4" "4100x8256 --batch 4"; do
            # shellcheck disable=SC2086 # (the shape and its batch: two words)
            r=$(CUTEC_GEMV_NVFP4_NEXT=1 device_gemv_run --dtype nvfp4 --shape $a)
            echo "$r"
            echo "$r" | grep -q "next slot into L2.*(0 wrong" || bad=1
        done
        GEMV_TIMEOUT=12
        pairs 7168x2048x4 3 --dtype nvfp4 --shape 7168x2048 --batch 4
        GEMV_TIMEOUT=16
        pairs 4096x7168x8 3 --dtype nvfp4 --shape 4096x7168 --batch 8
        GEMV_TIMEOUT=12
        pairs 7168x16384x1 2 --dtype nvfp4 --shape 7168x16384
        echo "== pairs (next - lib, points of the copy, one a round) $(el_s)"
        cat "$out/fp4_41.pairs"
        device_end
        echo "== decision (the rule in the header)"
        decide "$out/fp4_41.pairs"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: next: keep opt-in (no GPU)"
    fi
} >"$log" 2>&1
tail -n 60 "$log"
