#!/bin/sh
# gemv41's final pass on one H200 (issue 17: the bf16 GEMV at 95% of the copy and 1.35x torch.mv
# at 8192x8192, 16384x4096, 4096x16384), under BUDGET (60) s after the lead's `make all tests`
# (nothing is built here); log $OUT/gemv41.log.
# The mid pass (bench/RESULTS.md, gemv41): the GEMV through the row kernels lost at every shape
# (deleted); f32 16384x4096 read 97.5% of the copy through the register form, a row a warp at 34
# registers (16 blocks of 4 warps an SM), where bf16's ring (two rows a warp, 79 registers, 4
# blocks) read 90.2%.  The trial here, CUTEC_GEMV_TRIAL=warp1|warp1b (compile.c's plan_warp1):
# 16-bit A as f32 runs, the register form, a row a warp, many warps an SM asked for: warp1 two
# 16-byte vectors a lane a k-tile and 12 blocks an SM (sm_90a: 40 registers), warp1b one vector
# and 16 blocks (32 registers); no spill in either.
# This pass: each trial checked against float64 on the GPU at odd sizes (`cutec run gemv`, every
# element), then each shape and trial in one process, `cutec bench gemv --forms
# lib,T,lib,T` (the library's ring and the trial in turns, each row beside a device copy of the
# same bytes; each form's first row checked against float64: one trial a process, as the library
# keeps a kernel per configuration), then torch.mv (bf16, bench/torch_gemv.py mv-bf16) and f16
# at 16384x4096 if time is left.
# The rule, per trial and shape (d = trial - lib in points of the copy, each round): mean d >=
# 0.5 with both rounds ahead: "leads"; mean d <= -0.5: "loses"; else "spread".  Over the three
# bf16 shapes: a check or row WRONG -> "delete (wrong)"; leads at all three -> "default"; leads
# at some -> "default where it leads" (the library routes by the row length); else "delete".
# Where both qualify, the one with the higher sum of means; the other is deleted.
#   BUDGET=60 sh scripts/device-gemv41.sh
. scripts/device-common.sh
log="$out/gemv41.log"
start=$(date +%s)
budget=${BUDGET:-60}
SHAPES="8192x8192 16384x4096 4096x16384"

# step T WHAT: true if T more seconds fit the budget; else "-- skipped (time): WHAT"
step()
{
    [ $(($(date +%s) - start + $1)) -le "$budget" ] && return 0
    echo "-- skipped (time, at $(el) s): $2"
    return 1
}
# checked T ARGS: `cutec run gemv ARGS` under CUTEC_GEMV_TRIAL=T on the GPU, every element
# against float64: its line; bad=1 unless it ran the trial's form with 0 wrong
checked()
{
    step 7 "run $*" || return 0
    t=$1
    shift
    CUTEC_GEMV_TRIAL=$t timeout 10 build/cutec run gemv --iters 5 "$@" >"$out/gemv41.run" 2>&1
    echo "$t: run $*: $(tail -n 1 "$out/gemv41.run")"
    grep -q "a row a warp ($t).*verified against float64 (0 wrong" "$out/gemv41.run" || { echo "   ^ FAILED"; bad=1; }
}
# in_turns FILE DTYPE SHAPE T: `cutec bench gemv --forms lib,T,lib,T` into FILE (empty where the
# budget has no room), shown
in_turns()
{
    echo "== $2 $3: the library's (lib) and $4 in turns $(el_s)"
    : >"$1"
    step 8 "bench $2 $3 $4" || return 0
    timeout 12 stdbuf -oL build/cutec bench gemv --iters 20 --dtype "$2" --shape "$3" --forms "lib,$4,lib,$4" \
        >"$1" 2>&1
    grep -v "^# \(check\|time\)" "$1"
}
# judge FILE LABEL TORCH: the --forms rows of FILE (lib,T twice: a bench row is a line with "%"
# or "failed: no time", its form by its place), T against the lib row of its round: a line, then
# "verdict V M" (leads|loses|spread|wrong|untimed, the mean d); TORCH torch.mv's GB/s (0: none)
judge()
{
    awk -v s="$2" -v t="${3:-0}" '
        !/^#/ && (/%/ || /failed: no time/) {
            i = n++ % 2; r = int((n - 1) / 2)
            if (/WRONG/) v = "W"; else if (/failed/) v = "-"; else { p = $0; sub(/%.*/, "", p); k = split(p, f, " "); v = f[k]; g = f[k - 2] }
            pct[i, r] = v; if (v != "W" && v != "-" && g > gb[i]) gb[i] = g }
        END {
            nd = 0; sd = 0; allpos = 1; w = 0; line = ""
            for (r = 0; r < 2; r++) {
                l = pct[0, r]; x = pct[1, r]
                if (l == "W" || x == "W") w = 1
                if (l == "" || x == "" || l == "-" || x == "-" || l == "W" || x == "W") continue
                d = x - l; nd++; sd += d; if (d <= 0) allpos = 0
                line = line sprintf(" %+.2f (%s -> %s)", d, l, x) }
            m = nd ? sd / nd : 0
            v = w ? "wrong" : !nd ? "untimed" : m >= 0.5 && allpos ? "leads" : m <= -0.5 ? "loses" : "spread"
            tl = t > 0 && gb[1] > 0 ? sprintf("; %.0f GB/s = %.3fx torch.mv (%.0f), lib %.0f = %.3fx", gb[1], gb[1] / t, t, gb[0], gb[0] / t) : ""
            printf "%s: against lib:%s, mean %+.2f points: %s%s\n", s, line, m, v, tl
            printf "verdict %s %.2f\n", v, m }' "$1"
}
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing checked or timed"
        echo "decides: CUTEC_GEMV_TRIAL=warp1|warp1b: keep opt-in (no GPU)"
    else
        bad=0
        echo "== the trials against float64 on the GPU (every element) $(el_s)"
        checked warp1 --dtype bf16 --shape 4099x4104
        checked warp1b --dtype bf16 --shape 4099x8200
        checked warp1 --dtype f16 --out-dtype f32 --shape 1001x16392
        for t in warp1 warp1b; do
            for s in $SHAPES; do in_turns "$out/gemv41.$t.$s" bf16 "$s" $t; done
        done
        echo "== torch.mv (bf16) $(el_s)"
        : >"$out/gemv41.torch"
        step 10 "torch.mv" && timeout 20 python3 bench/torch_gemv.py mv-bf16 >"$out/gemv41.torch" 2>&1
        cat "$out/gemv41.torch"
        in_turns "$out/gemv41.warp1.f16" f16 16384x4096 warp1 # the scope of a default, if time is left
        echo "== at $(el) s: points of the copy, each trial against lib in its round (d = trial - lib)"
        : >"$out/gemv41.final"
        for t in warp1 warp1b; do
            vs="" sum=0
            for s in $SHAPES; do
                tg=$(awk -v s="$s" '$1 == "torch.mv" && $3 == s ":" { print $(NF - 1) }' "$out/gemv41.torch")
                judge "$out/gemv41.$t.$s" "$t $s" "$tg" >"$out/gemv41.judge"
                grep -v "^verdict" "$out/gemv41.judge"
                # shellcheck disable=SC2046 # (two words)
                set -- $(grep "^verdict" "$out/gemv41.judge" | cut -d" " -f2-) untimed 0
                echo "decides: $t $s: $1"
                vs="$vs $1" sum=$(awk -v a="$sum" -v b="$2" 'BEGIN { print a + b }')
            done
            echo "$t:$vs:$sum" | awk -F: -v bad="$bad" '{
                k = split($2, w, " "); for (i = 1; i <= k; i++) n[w[i]]++
                if (bad || n["wrong"]) v = "delete (wrong: a check or a row against float64 failed)"
                else if (n["leads"] == 3) v = "default (leads at all 3)"
                else if (n["leads"]) v = "default where it leads (" n["leads"] " of 3; loses at " n["loses"] + 0 "): routed by the row length"
                else if (n["untimed"] == k) v = "keep opt-in (not timed)"
                else v = "delete (leads at " n["leads"] + 0 " of 3, loses at " n["loses"] + 0 ")"
                printf "decides: %s: %s (sum of means %+.2f)\n", $1, v, $3 }' | tee -a "$out/gemv41.final"
        done
        judge "$out/gemv41.warp1.f16" "warp1 f16 16384x4096" 0 | grep -v "^verdict"
        awk '/^decides: warp1b?: default/ { sub(/^decides: /, ""); sub(/:.*sum of means /, " "); sub(/\)$/, ""); print }' \
            "$out/gemv41.final" | sort -k2 -g -r | head -n 1 | awk '
                { print "decides: CUTEC_GEMV_TRIAL: " $1 " becomes the default (the higher sum where both qualify)"; f = 1 }
                END { if (!f) print "decides: CUTEC_GEMV_TRIAL: no trial becomes the default" }'
    fi
    device_end
} >"$log" 2>&1
cat "$log"
