#!/bin/sh
# The NVFP4 GEMV pass of branch fp4g on a GPU machine (issue 17), about 60 s on one H200
# after the build.  fp4g's reading (docs/gemv.md, "The decode's pipes"): a k-tile's loop is
# 359 SASS instructions a warp, 226 of them on the integer ALU pipe (half a warp instruction
# a clock); so it moved decode work to the FMA pipe, in levels.  The mid pass (H200,
# 2026-11-27 16:55) measured levels 2 and 3 slower: (7168,16384,1) 66.5 / 66.8% of the copy
# against the library's 69.5%, (4096,7168,8) level 2 74.7% against 76.5%.  So they are
# deleted, and what is left to decide is level 1 alone (`--fma-decode 1`, opt-in): each
# ue4m3 scale to f32 by its bits (an IMAD, a LOP3, an FMUL) instead of cvt and a widening
# (F2FP, HADD2.F32, shifts and masks), 354 instructions a k-tile against 359.
# What this pass decides, level 1 beside the library's (level 0) and a device copy of the
# same bytes in the same process, at (7168,16384,1) and (4096,7168,8), twice where the
# budget allows (a bench of these shapes, its float64 check included, takes ~10 s): at least 1 point faster in every pair measured, at least one at each shape
# -> "make default" (nvfp4.c: CUTE_GEMV_FMA_DECODE 0 -> 1); slower in every pair (two or
# more) -> "delete" it; else "keep opt-in".
# First level 1 on the GPU against float64 at odd sizes (4100 rows, a partial last warp, K
# with a tail: one ahead batched, two ahead, each forced).  Past BUDGET_S (50) a step prints
# "skipped".  Logs in $OUT (default build/device-out); the log's tail is printed.
# `sh scripts/device-fp4g.sh decide FILE` prints the decisions of a pairs file alone.
. scripts/device-common.sh
log="$out/fp4g.log"
start=$(date +%s) budget=${BUDGET_S:-50} GEMV_TIMEOUT=15
# the decision from the pairs file: lines "SHAPE... LEVEL PCT", level 0 first in each pair
decide()
{
    awk '$(NF - 1) == 0 {base = $NF; next}
        $(NF - 1) == 1 && base != "-" && $NF != "-" {
            n++; d = $NF - base; seen[$1] = 1
            if (d >= 1) faster++
            if (d < 0) slower++
        }
        END {
            shapes = 0
            for (s in seen) shapes++
            printf "level 1: %d pairs at %d shapes, %d at least 1 point faster than level 0, %d slower\n",
                n, shapes, faster, slower
            if (n > 0 && faster == n && shapes >= 2)
                print "decides: make default fma_decode 1 (nvfp4.c: CUTE_GEMV_FMA_DECODE 0 -> 1)"
            else if (n >= 2 && slower == n)
                print "decides: delete fma_decode (slower in every pair: blockscaled.c scale_of_pair, its config, option and test)"
            else
                print "decides: keep opt-in (--fma-decode 1; nvfp4.c CUTE_GEMV_FMA_DECODE stays 0)"
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
pass()
{
    device_begin
    device_gpu || return
    echo "== level 1 on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 3 --ahead 1 --fma-decode 1
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 2 --fma-decode 1
    echo "== pairs: the library's (level 0) and level 1, each beside the copy"
    rm -f "$out/fp4g.pairs"
    for i in 1 2; do
        for s in "7168x16384" "4096x7168 --batch 8"; do
            for l in 0 1; do
                # shellcheck disable=SC2086
                r=$(device_gemv --dtype nvfp4 --shape $s --fma-decode $l | tail -n 1)
                echo "$r"
                p=$(copy_pct "$r")
                echo "$s $l ${p:--}" >>"$out/fp4g.pairs"
            done
        done
    done
    device_end
    echo "== decision (the rule in the header)"
    decide "$out/fp4g.pairs"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 40
