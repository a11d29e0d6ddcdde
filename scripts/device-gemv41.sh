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
# This pass: the trial checked against float64 on the GPU at odd sizes (`cutec run gemv`,
# every element), then each shape in one process, `cutec bench gemv --forms
# lib,rowred,lib,rowred` (the library's ring and the trial in turns, each row beside a device
# copy of the same bytes; each form's first row checked against float64), then torch.mv (bf16,
# bench/torch_gemv.py mv-bf16) and the read-only row sum (`cutec bench sum`) if time is left.
# The rule, per shape (d = rowred - lib in points of the copy, each pair): mean d >= 0.5 with
# both pairs ahead: "rowred leads"; mean d <= -0.5: "rowred loses"; else "within the spread".
# Over the shapes: a check or row WRONG -> "delete (wrong)"; leads at all three -> "make it the
# default"; leads at some, loses at none -> "the default where it leads"; else "delete".
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
# checked ARGS: `cutec run gemv ARGS` under the trial on the GPU, every element against
# float64: its line; bad=1 unless it ran through the row kernels with 0 wrong
checked()
{
    step 8 "run $*" || return 0
    CUTEC_GEMV_TRIAL=rows timeout 10 build/cutec run gemv --iters 5 "$@" >"$out/gemv41.run" 2>&1
    echo "run $*: $(tail -n 1 "$out/gemv41.run")"
    grep -q "row-kernel.*verified against float64 (0 wrong" "$out/gemv41.run" || { echo "   ^ FAILED"; bad=1; }
}
# pcts FILE: "lib1 row1 lib2 row2" (% of the copy; W where WRONG, - where missing) of the
# --forms rows, in their order
pcts()
{
    awk '/%/ && !/^#/ {
            w = $0 ~ /WRONG/; p = $0; sub(/%.*/, "", p); n = split(p, f, " "); v = w ? "W" : f[n]
            if ($1 ~ /^row-kernel/) r[++nr] = v; else if ($1 ~ /^rows/) l[++nl] = v }
         END { printf "%s %s %s %s\n", (1 in l) ? l[1] : "-", (1 in r) ? r[1] : "-", (2 in l) ? l[2] : "-", (2 in r) ? r[2] : "-" }' "$1"
}
# gbs FILE FORM: the best GB/s of FORM's rows (rows|row-kernel) in FILE
gbs()
{
    awk -v f="$2" '/%/ && !/^#/ && !/WRONG/ && $1 ~ "^" f "$" {
            p = $0; sub(/%.*/, "", p); n = split(p, t, " "); if (t[n - 2] > b) b = t[n - 2] }
         END { print b + 0 }' "$1"
}
{
    device_head
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing checked or timed"
        echo "decides: CUTEC_GEMV_TRIAL=rows: keep opt-in (no GPU)"
    else
        bad=0
        echo "== the trial against float64 on the GPU (every element) $(el_s)"
        checked --dtype bf16 --shape 4099x4104
        checked --dtype bf16 --out-dtype f32 --shape 1001x16392
        checked --dtype f16 --shape 7x100003
        for s in $SHAPES; do
            echo "== bf16 $s: the library's (lib) and the trial (rowred) in turns $(el_s)"
            if step 9 "bench $s"; then
                timeout 12 stdbuf -oL build/cutec bench gemv --iters 20 --dtype bf16 --shape "$s" \
                    --forms lib,rowred,lib,rowred >"$out/gemv41.$s" 2>&1
                grep -v "^# \(check\|time\)" "$out/gemv41.$s"
            else
                : >"$out/gemv41.$s"
            fi
        done
        echo "== torch.mv (bf16) $(el_s)"
        if step 12 "torch.mv"; then
            timeout 20 python3 bench/torch_gemv.py mv-bf16 >"$out/gemv41.torch" 2>&1
            cat "$out/gemv41.torch"
        else
            : >"$out/gemv41.torch"
        fi
        for d in f16 f32; do # the scope of a default: the other dtypes at one shape, if time is left
            echo "== $d 16384x4096: lib / rowred in turns $(el_s)"
            if step 9 "bench $d"; then
                timeout 12 stdbuf -oL build/cutec bench gemv --iters 20 --dtype $d --shape 16384x4096 \
                    --forms lib,rowred,lib,rowred >"$out/gemv41.$d" 2>&1
                grep -v "^# \(check\|time\)" "$out/gemv41.$d"
            else
                : >"$out/gemv41.$d"
            fi
        done
        echo "== the read-only row sum (the yardstick) $(el_s)"
        step 6 "bench sum" && CUTEC_TORCH_ROWS=/dev/null timeout 8 build/cutec bench sum --dtype bf16 --shape 16384x4096 --iters 20 2>&1 |
            grep -v "^# \(check\|time\|index\)"
        echo "== at $(el) s: % of the copy, lib / rowred in turns"
        verdicts=""
        for s in $SHAPES; do
            # shellcheck disable=SC2046 # (four words)
            set -- $(pcts "$out/gemv41.$s")
            t=$(awk -v s="$s" '$1 == "torch.mv" && $3 == s ":" { print $(NF - 1) }' "$out/gemv41.torch")
            gl=$(gbs "$out/gemv41.$s" rows) gr=$(gbs "$out/gemv41.$s" row-kernel)
            v=$(awk -v s="$s" -v l1="$1" -v r1="$2" -v l2="$3" -v r2="$4" -v t="${t:-0}" -v gl="$gl" -v gr="$gr" 'BEGIN {
                if (l1 r1 l2 r2 ~ /W/) { print "wrong"; exit }
                if (l1 == "-" || r1 == "-") { print "untimed"; exit }
                d1 = r1 - l1; d2 = (l2 == "-" || r2 == "-") ? d1 : r2 - l2; m = (d1 + d2) / 2
                v = m >= 0.5 && d1 > 0 && d2 > 0 ? "leads" : m <= -0.5 ? "loses" : "spread"
                tl = t > 0 ? sprintf("%.2fx / %.2fx torch.mv (%.0f GB/s)", gl / t, gr / t, t) : "torch.mv not timed"
                printf "%s\t%s: lib %s / %s, rowred %s / %s: d %+.2f (pairs %+.2f %+.2f); %s; GB/s lib %.0f, rowred %.0f\n",
                       v, s, l1, l2, r1, r2, m, d1, d2, tl, gl, gr }')
            echo "${v#*	}"
            verdicts="$verdicts ${v%%	*}"
            echo "decides: $s: rowred ${v%%	*}"
        done
        for d in f16 f32; do
            # shellcheck disable=SC2046 # (four words)
            set -- $(pcts "$out/gemv41.$d")
            awk -v d="$d" -v l1="$1" -v r1="$2" -v l2="$3" -v r2="$4" 'BEGIN {
                if (l1 r1 l2 r2 ~ /W/) { print "decides: " d " 16384x4096: rowred wrong"; exit }
                if (l1 == "-" || r1 == "-") { print "decides: " d " 16384x4096: rowred untimed"; exit }
                d1 = r1 - l1; d2 = (l2 == "-" || r2 == "-") ? d1 : r2 - l2; m = (d1 + d2) / 2
                v = m >= 0.5 && d1 > 0 && d2 > 0 ? "leads" : m <= -0.5 ? "loses" : "spread"
                printf "%s 16384x4096: lib %s / %s, rowred %s / %s: d %+.2f (pairs %+.2f %+.2f)\n", d, l1, l2, r1, r2, m, d1, d2
                printf "decides: %s 16384x4096 (the default'"'"'s scope): rowred %s\n", d, v }'
            grep -q WRONG "$out/gemv41.$d" && bad=1
        done
        echo "$verdicts" | awk -v bad="$bad" '{
            for (i = 1; i <= NF; i++) n[$i]++
            if (bad || n["wrong"]) v = "delete (wrong: a check or a row against float64 failed)"
            else if (n["leads"] == 3) v = "make it the default (one K-major vector; the variable deleted)"
            else if (n["leads"] && !n["loses"]) v = "the default at the shapes it leads at (" n["leads"] " of 3)"
            else if (n["untimed"] == NF) v = "keep opt-in (not timed)"
            else v = "delete (leads at " n["leads"] + 0 " of 3, loses at " n["loses"] + 0 ")"
            print "decides: CUTEC_GEMV_TRIAL=rows: " v }'
    fi
    device_end
} >"$log" 2>&1
cat "$log"
