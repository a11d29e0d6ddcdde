#!/bin/sh
# The NVFP4 GEMV pass of branch fp4s on a GPU machine (issue 17), at most 80 s on one H200 after
# the lead's `make all tests`.  fp4s's change, opt-in until this pass: rows by scale tile
# (`--scale-rows tiled`, cute_gemv_lib_scale_rows, cfg.scale_rows_tiled): each warp takes rows
# r, r+32, r+64, r+96 of a 128-row scale tile, so that a lane loads its four rows' scale pairs
# in one 16-byte load (one load touching 16 sectors a warp a k-tile instead of four).
# Without a GPU every step prints that it skipped.
#
# Steps: (1) the card and clocks; (2) on the GPU against float64 (the CLI's rows): the tiled form at
# a partial last scale tile (4100 rows: two k-tiles ahead, the library's), batched (one ahead,
# asked: the library's there is a k-tile at a time), and two ahead at 7000 x 3072 (asked); (3) at
# (7168,16384,1) and (4096,7168,8), the library's form and the tiled form alternately, twice
# each (A B A B), each row beside a device copy of the same bytes in its own process
# (`cutec bench gemv`, 20 iterations); (4) ptxas's registers and spills of the tiled forms.
#
# The rule (points of the copy's bandwidth, tiled minus the library's, per pair; d_S the smaller
# of the two pairs at shape S, D_S the larger):
#   any wrong element or a failed run                     -> "decides: keep opt-in (fix: ...)"
#   d at one shape >= +1.0 and d at the other >= -0.5     -> "decides: make default"
#                                       (the flip: src/kernels/gemv/nvfp4.c,
#                                        #define CUTE_GEMV_SCALE_ROWS_TILED 0 -> 1)
#   D < 0 at both shapes (slower in every pair)           -> "decides: delete" (the quads in
#                                       blockscaled.c, rows_by_scale_tile in parts.c, the flag)
#   else                                                  -> "decides: keep opt-in"
# Logs in $OUT (default build/device-out); the log's tail is printed.  Past BUDGET_S (70 s)
# the remaining steps print "skipped".
. scripts/device-common.sh
log="$out/fp4s.log"
start=$(date +%s) budget=${BUDGET_S:-70} GEMV_TIMEOUT=20
pass()
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "no GPU: every step skipped"
        echo "decides: nothing (no GPU)"
        return
    fi
    echo "== rows by scale tile on the GPU at odd sizes (against float64)"
    fails=0 missing=0
    for a in "--shape 4100x8256" "--shape 4100x8256 --batch 3 --ahead 1" "--shape 7000x3072 --ahead 2"; do
        # shellcheck disable=SC2086
        r=$(device_gemv_run --dtype nvfp4 $a --scale-rows tiled)
        echo "$r"
        echo "$r" | grep -q "skipped" && missing=$((missing + 1)) && continue
        echo "$r" | grep -q "rows by scale tile.*verified against float64 (0 wrong" || fails=$((fails + 1))
    done
    echo "== (7168,16384,1) and (4096,7168,8): the library's, then rows by scale tile, twice"
    res=""
    for s in "7168x16384 --batch 1" "4096x7168 --batch 8"; do
        for i in 1 2; do
            # shellcheck disable=SC2086
            lib=$(device_gemv --dtype nvfp4 --shape $s | tail -n 1)
            # shellcheck disable=SC2086
            til=$(device_gemv --dtype nvfp4 --shape $s --scale-rows tiled | tail -n 1)
            echo "$lib"
            echo "$til"
            if echo "$lib$til" | grep -q "skipped"; then missing=$((missing + 1)) && continue; fi
            echo "$lib$til" | grep -q WRONG && fails=$((fails + 1))
            echo "$til" | grep -q "rows by scale tile" || fails=$((fails + 1))
            pl=$(copy_pct "$lib") pt=$(copy_pct "$til")
            if [ -z "$pl" ] || [ -z "$pt" ]; then missing=$((missing + 1)) && continue; fi
            res="$res ${s%% *}:$(awk -v a="$pt" -v b="$pl" 'BEGIN { printf "%.1f", a - b }')"
        done
    done
    echo "tiled minus the library's (points of the copy), per pair:$res"
    device_gemv_usage "nvfp4 --scale-rows tiled" "nvfp4 --scale-rows tiled --ahead 2"
    device_end
    if [ "$fails" -gt 0 ]; then
        echo "decides: keep opt-in (fix: $fails wrong or failed runs of the tiled form)"
    elif [ "$missing" -gt 0 ]; then
        echo "decides: keep opt-in (not measured: $missing steps skipped or without a figure)"
    else
        echo "$res" | awk '{
            for (i = 1; i <= NF; i++) { split($i, f, ":"); v = f[2] + 0
                if (!(f[1] in lo) || v < lo[f[1]]) lo[f[1]] = v
                if (!(f[1] in hi) || v > hi[f[1]]) hi[f[1]] = v }
            a = lo["7168x16384"]; b = lo["4096x7168"]
            if ((a >= 1.0 && b >= -0.5) || (b >= 1.0 && a >= -0.5))
                print "decides: make default (nvfp4.c: CUTE_GEMV_SCALE_ROWS_TILED 0 -> 1)"
            else if (hi["7168x16384"] < 0 && hi["4096x7168"] < 0)
                print "decides: delete (slower in every pair at both shapes)"
            else print "decides: keep opt-in (not 1 point faster in both pairs of a shape)" }'
    fi
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 40
