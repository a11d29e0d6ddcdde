#!/bin/sh
# The NVFP4 GEMV pass of branch fp4g on a GPU machine (issue 17), about 70 s on one H200
# after the build.  What fp4g found (docs/gemv.md, "What bounds NVFP4 before sm_100"): the
# kernel is bound by the integer ALU's issue rate, not by the bytes in flight.  A k-tile's
# loop (one ahead) is 359 SASS instructions a warp, about 226 of them on the ALU pipe (PRMT,
# LOP3, SHF, IADD3, F2FP, I2FP), which issues half a warp instruction a clock a scheduler:
# 452 clocks a k-tile, against 359 of issue.  At (7168,16384,1) an SM with 4 blocks has 256
# warp-k-tiles, 29,000 ALU clocks a scheduler, 14.6 us at 1.98 GHz where the copy of the
# same bytes takes 18 us; at (4096,7168,8) 26 us of ALU against 31 us.  The candidates move
# decode work to the FMA pipe (cute_gemv_config.fma_decode, `--fma-decode N`, opt-in):
#   1: the ue4m3 scales to f32 by their bits (shift, AND, times 2^120), not cvt and a
#      widening a byte: ALU 211 a k-tile;
#   2: also the upper half of each e2m1 word by a multiply (IMAD.WIDE), not SHF: ALU 185;
#   3: also each scale block's integer sum to f32 by a bias and an FADD, not I2FP, and x's
#      signed bytes by a subtraction and one LOP3: ALU 177 (355 instructions: about as many
#      as the issue's one a clock allows).
# What this pass decides, levels 2 and 3 each beside the library's (level 0) and a device
# copy of the same bytes in the same process, twice, at (7168,16384,1) and (4096,7168,8):
#   the highest level at least 1 point faster than level 0 in all four pairs -> "make
#   default" (nvfp4.c: CUTE_GEMV_FMA_DECODE 0 -> that level); a level slower than level 0
#   in all four pairs -> "delete" it (level 1, untimed, goes with level 2); else "keep
#   opt-in".
# First the levels on the GPU against float64 at odd sizes (4100 rows, a partial last warp,
# K with a tail: one ahead batched, two ahead, a k-tile at a time batched; every form forced,
# as the library would run 4100x8256 L = 3 a k-tile at a time).  Then the pairs, then figures
# only: level 3 one ahead at L = 1 and two ahead at L = 8 (the ALU bound would make the bytes
# in flight matter less), (7168,2048,4) at levels 0 and 3; past BUDGET_S (70) "skipped".  Logs in $OUT (default
# build/device-out); the log's tail is printed.  `sh scripts/device-fp4g.sh decide FILE`
# prints the decisions of a pairs file alone.
. scripts/device-common.sh
log="$out/fp4g.log"
start=$(date +%s) budget=${BUDGET_S:-70} GEMV_TIMEOUT=15
# the "of copy" figure of a bench row (the last field, without %), or "-" if none came
pct() { awk '/%$/ {v=$NF} END {sub("%", "", v); print v == "" ? "-" : v}'; }
# the decisions from the pairs file: lines "SHAPE... LEVEL PCT", level 0 first in each group
decide()
{
    for l in $levels; do
        awk -v l="$l" '$(NF - 1) == 0 {base = $NF; next}
            $(NF - 1) == l && base != "-" && $NF != "-" {
                n++; d = $NF - base
                if (d >= 1) faster++
                if (d < 0) slower++
            }
            END {print l, n + 0, faster + 0, slower + 0}' "$1"
    done | {
        best=0
        while read -r l n faster slower; do
            echo "level $l: $n pairs, $faster at least 1 point faster than level 0, $slower slower"
            [ "$n" -eq 4 ] && [ "$faster" -eq 4 ] && best=$l
            [ "$n" -eq 4 ] && [ "$slower" -eq 4 ] && echo "decides: delete fma_decode level $l (slower in 4 of 4 pairs)"
        done
        if [ "$best" -gt 0 ]; then
            echo "decides: make default fma_decode $best (nvfp4.c: CUTE_GEMV_FMA_DECODE 0 -> $best)"
        else
            echo "decides: keep opt-in (--fma-decode N; nvfp4.c's CUTE_GEMV_FMA_DECODE stays 0)"
        fi
    }
}
levels="2 3" # the levels timed against level 0
[ "${1:-}" = decide ] && decide "$2" && exit 0
pass()
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU: skipped"
        return
    fi
    echo "== every level on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 3 --ahead 1 --fma-decode 2
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 3 --ahead 1 --fma-decode 3
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 2 --fma-decode 3
    device_gemv_run --dtype nvfp4 --shape 4100x4160 --batch 2 --tile-at-a-time 1 --fma-decode 3
    echo "== pairs: the library's (level 0) and levels $levels, each beside the copy, twice"
    rm -f "$out/fp4g.pairs"
    for i in 1 2; do
        for s in "7168x16384" "4096x7168 --batch 8"; do
            for l in 0 $levels; do
                # shellcheck disable=SC2086
                r=$(device_gemv --dtype nvfp4 --shape $s --fma-decode $l | tail -n 1)
                echo "$r"
                echo "$s $l $(echo "$r" | pct)" >>"$out/fp4g.pairs"
            done
        done
    done
    echo "== figures only: level 3 with the other k-tiles ahead (1 at L = 1, 2 at L = 8)"
    device_gemv --dtype nvfp4 --shape 7168x16384 --ahead 1 --fma-decode 3 | tail -n 1
    device_gemv --dtype nvfp4 --shape 4096x7168 --batch 8 --ahead 2 --fma-decode 3 | tail -n 1
    echo "== (7168,2048,4), figures only"
    for l in 0 3; do device_gemv --dtype nvfp4 --shape 7168x2048 --batch 4 --fma-decode $l | tail -n 1; done
    device_end
    echo "== decisions (the rule in the header)"
    decide "$out/fp4g.pairs"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
