#!/bin/sh
# gemv41's pass on one H200 (issue 17: the bf16 GEMV at 95% of the copy and 1.35x torch.mv at
# 8192x8192, 16384x4096, 4096x16384), under BUDGET (50) s after the lead's `make all tests`
# (nothing is built here); log $OUT/gemv41.log.
# The trial: CUTEC_GEMV_TRIAL=rows runs a GEMV of one unbatched vector of K-major A (y f32 or
# A's dtype) through the row kernels (src/kernels/rows/matvec.c: A the row input, x a column
# input as a norm's weight), which stream each row whole at once, as the read-only row sum
# does (104% of the copy at 16384x4096 where the GEMV ran 87-90%: bench/RESULTS.md, gemv7).
# Its plans (sm_90a, ptxas): 16384x4096 two rows of 128 threads a block, 64 bytes of A and of
# x a thread in one go (52 registers); 8192x8192 a row of 256 threads (54); 4096x16384 a row
# staged in shared memory by bulk copies, two chunks (60).
# rows6 (rowred6 in the bench) asks the row kernels for six blocks an SM (40 registers, no
# spill; the row sum's 38-39 registers ran 104% of the copy): 8192x8192 and 16384x4096 only
# (the staged row's kernel is the same).
# This pass: the trial checked against float64 on the GPU at odd sizes (`cutec run gemv`,
# every element), then each shape in one process, `cutec bench gemv --forms
# lib,rowred,rowred6,lib,rowred,rowred6` (the library's ring and the trials in turns, each row
# beside a device copy of the same bytes; each form's first row checked against float64),
# then torch.mv (bf16,
# bench/torch_gemv.py mv-bf16) and the read-only row sum (`cutec bench sum`) if time is left.
# The rule, per trial and shape (d = trial - lib in points of the copy, each round): mean d >=
# 0.5 with both rounds ahead: "leads"; mean d <= -0.5: "loses"; else "spread".  Over the three
# bf16 shapes: a check or row WRONG -> "delete (wrong)"; leads at all three -> "default"; leads
# at some -> "default where it leads" (the library routes by the row length); else "delete".  Where both trials qualify,
# the one with the higher sum of means becomes the default, the other is deleted.
#   BUDGET=50 sh scripts/device-gemv41.sh
. scripts/device-common.sh
log="$out/gemv41.log"
start=$(date +%s)
budget=${BUDGET:-50}
SHAPES="8192x8192 16384x4096 4096x16384"

# step T WHAT: true if T more seconds fit the budget; else "-- skipped (time): WHAT"
step()
{
    [ $(($(date +%s) - start + $1)) -le "$budget" ] && return 0
    echo "-- skipped (time, at $(el) s): $2"
    return 1
}
# checked T ARGS: `cutec run gemv ARGS` under CUTEC_GEMV_TRIAL=T on the GPU, every element
# against float64: its line; bad=1 unless it ran through the row kernels with 0 wrong
checked()
{
    step 8 "run $*" || return 0
    t=$1
    shift
    CUTEC_GEMV_TRIAL=$t timeout 10 build/cutec run gemv --iters 5 "$@" >"$out/gemv41.run" 2>&1
    echo "$t: run $*: $(tail -n 1 "$out/gemv41.run")"
    grep -q "row-kernel.*verified against float64 (0 wrong" "$out/gemv41.run" || { echo "   ^ FAILED"; bad=1; }
}
# in_turns FILE DTYPE SHAPE: `cutec bench gemv --forms lib,rowred,rowred6,lib,rowred,rowred6`
# into FILE (empty where the budget has no room), shown
in_turns()
{
    echo "== $2 $3: the library's (lib) and the trials (rowred, rowred6) in turns $(el_s)"
    : >"$1"
    step 10 "bench $2 $3" || return 0
    timeout 14 stdbuf -oL build/cutec bench gemv --iters 20 --dtype "$2" --shape "$3" \
        --forms lib,rowred,rowred6,lib,rowred,rowred6 >"$1" 2>&1
    grep -v "^# \(check\|time\)" "$1"
}
# judge FILE LABEL TORCH: the --forms rows of FILE (lib,rowred,rowred6 twice: a bench row is
# a line with "%" or "failed: no time", its form by its place), each trial against the lib row
# of its round: "LABEL: ..." lines, then "verdicts V1 V2 M1 M2" (leads|loses|spread|wrong|
# untimed, and the mean d) as the last line; TORCH the torch.mv GB/s (0: not timed)
judge()
{
    awk -v s="$2" -v t="${3:-0}" '
        !/^#/ && (/%/ || /failed: no time/) {
            i = n++ % 3; r = int((n - 1) / 3)
            if (/WRONG/) v = "W"; else if (/failed/) v = "-"; else { p = $0; sub(/%.*/, "", p); k = split(p, f, " "); v = f[k]; g = f[k - 2] }
            pct[i, r] = v; if (v != "W" && v != "-" && g > gb[i]) gb[i] = g }
        END {
            split("lib rowred rowred6", name, " ")
            for (i = 1; i <= 2; i++) {
                nd = 0; sd = 0; allpos = 1; w = 0; line = ""
                for (r = 0; r < 2; r++) {
                    l = pct[0, r]; x = pct[i, r]
                    if (l == "W" || x == "W") w = 1
                    if (l == "" || x == "" || l == "-" || x == "-" || l == "W" || x == "W") continue
                    d = x - l; nd++; sd += d; if (d <= 0) allpos = 0
                    line = line sprintf(" %+.2f (%s -> %s)", d, l, x) }
                m = nd ? sd / nd : 0
                vd[i] = w ? "wrong" : !nd ? "untimed" : m >= 0.5 && allpos ? "leads" : m <= -0.5 ? "loses" : "spread"
                mm[i] = m
                tl = t > 0 && gb[i] > 0 ? sprintf("; %.0f GB/s = %.3fx torch.mv (%.0f), lib %.3fx", gb[i], gb[i] / t, t, gb[0] / t) : ""
                printf "%s: %s against lib:%s, mean %+.2f points: %s%s\n", s, name[i + 1], line, m, vd[i], tl }
            printf "verdicts %s %s %.2f %.2f\n", vd[1], vd[2], mm[1], mm[2] }' "$1"
}
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing checked or timed"
        echo "decides: CUTEC_GEMV_TRIAL=rows: keep opt-in (no GPU)"
    else
        bad=0
        echo "== the trial against float64 on the GPU (every element) $(el_s)"
        checked rows --dtype bf16 --shape 4099x4104
        checked rows6 --dtype bf16 --shape 4099x8192
        checked rows --dtype bf16 --out-dtype f32 --shape 1001x16392
        checked rows --dtype f16 --shape 7x100003
        for s in $SHAPES; do in_turns "$out/gemv41.$s" bf16 "$s"; done
        echo "== torch.mv (bf16) $(el_s)"
        if step 12 "torch.mv"; then
            timeout 20 python3 bench/torch_gemv.py mv-bf16 >"$out/gemv41.torch" 2>&1
            cat "$out/gemv41.torch"
        else
            : >"$out/gemv41.torch"
        fi
        # the scope of a default: the other dtypes at one shape, if time is left
        for d in f16 f32; do in_turns "$out/gemv41.$d" $d 16384x4096; done
        echo "== the read-only row sum (the yardstick) $(el_s)"
        step 6 "bench sum" && CUTEC_TORCH_ROWS=/dev/null timeout 8 build/cutec bench sum --dtype bf16 --shape 16384x4096 --iters 20 2>&1 |
            grep -v "^# \(check\|time\|index\)"
        echo "== at $(el) s: points of the copy, each trial against lib in its round (d = trial - lib)"
        v1="" v2="" sum1=0 sum2=0
        for s in $SHAPES f16 f32; do
            t=$(awk -v s="$s" '$1 == "torch.mv" && $3 == s ":" { print $(NF - 1) }' "$out/gemv41.torch")
            label=$s
            case $s in f16 | f32) label="$s 16384x4096" ;; esac
            judge "$out/gemv41.$s" "$label" "$t" >"$out/gemv41.judge"
            grep -v "^verdicts" "$out/gemv41.judge"
            # shellcheck disable=SC2046 # (four words)
            set -- $(grep "^verdicts" "$out/gemv41.judge" | cut -d" " -f2-) untimed untimed 0 0
            echo "decides: $label: rowred $1, rowred6 $2"
            case "$1 $2" in *wrong*) bad=1 ;; esac # (a wrong f16 or f32 row deletes both)
            case $s in f16 | f32) continue ;; esac
            v1="$v1 $1" v2="$v2 $2" sum1=$(awk -v a="$sum1" -v b="$3" 'BEGIN { print a + b }')
            sum2=$(awk -v a="$sum2" -v b="$4" 'BEGIN { print a + b }')
        done
        # the overall rule, per trial, then the one to keep (the higher mean where both qualify)
        for x in "rowred:$v1:$sum1" "rowred6:$v2:$sum2"; do
            echo "$x" | awk -F: -v bad="$bad" '{
                k = split($2, w, " "); for (i = 1; i <= k; i++) n[w[i]]++
                if (bad || n["wrong"]) v = "delete (wrong: a check or a row against float64 failed)"
                else if (n["leads"] == 3) v = "default (leads at all 3)"
                else if (n["leads"]) v = "default where it leads (" n["leads"] " of 3; loses at " n["loses"] + 0 "): routed by the row length"
                else if (n["untimed"] == k) v = "keep opt-in (not timed)"
                else v = "delete (leads at " n["leads"] + 0 " of 3, loses at " n["loses"] + 0 ")"
                printf "decides: %s: %s (sum of means %+.2f)\n", $1, v, $3 }'
        done | tee "$out/gemv41.final"
        awk '/^decides: rowred6?: default/ { sub(/^decides: /, ""); sub(/:.*sum of means /, " "); sub(/\)$/, ""); print }' \
            "$out/gemv41.final" | sort -k2 -g -r | head -n 1 | awk '
                { print "decides: CUTEC_GEMV_TRIAL: " $1 " becomes the default (the higher sum where both qualify); the other deleted"; f = 1 }
                END { if (!f) print "decides: CUTEC_GEMV_TRIAL: no trial becomes the default" }'
    fi
    device_end
} >"$log" 2>&1
cat "$log"
