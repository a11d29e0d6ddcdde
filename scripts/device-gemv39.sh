#!/bin/sh
# gemv39's pass on a GPU machine (issue 17), at most 60 s on one H200 after `make all tests`;
# log $OUT/gemv39.log.  One opt-in form, `CUTEC_GEMV_BLOCK_WARPS=8` (docs/gemv.md, "Blocks of 8
# warps"): the bf16 ring's and NVFP4's register forms in blocks of 8 warps (16 or 32 rows)
# instead of 4, half the blocks at the same warps, registers and bytes in flight an SM.
# Why: fp4h's blocks of 1, 2, 4 warps ran 83.5 / 88.5 / 90.8% of the copy at bf16 16384x4096
# (8192x8192 88.4 / 90.6 / 93.2): every halving of the blocks paid, and the bf16 figures fall
# with the blocks a shape has (2,048 / 1,024 / 512: 89.8 / 91.8 / 94.3), not with the bytes in
# flight (96 KB an SM, three times Little's law).  Predicted (bench/RESULTS.md, gemv39): bf16
# +1.2 / +1.3 / +0.5 points at 16384x4096 / 8192x8192 / 4096x16384; NVFP4 (4096,7168,8) and
# (7168,2048,4) -3 to +1.5 (the rounds unchanged: 2.6 and 2.3), (7168,16384,1) -1 to -4 (224
# blocks of 32 rows two an SM: 40 SMs hold one).
#  1. 8 warps on the GPU against float64 first (`cutec run gemv`, odd sizes: rows past a block,
#     batches, split-K, NVFP4 two ahead (L=2: 514 blocks), one ahead, a k-tile at a time);
#     ptxas (sm_90a) gives 8 warps the default's registers (bf16 79, NVFP4 one ahead 80, two
#     ahead 128), no spills;
#  2. `cutec bench gemv` (three shapes a dtype, each row beside a device copy of the same bytes,
#     every row's first run checked against float64), bf16 and NVFP4, the default and 8 warps in
#     turns, one process a row set, two rounds (the second in reverse order);
#  3. "decides:" per dtype: 8 warps at least +1 point in both rounds at all three shapes ->
#     make default (the flip: compile.c GEMV_BLOCK_WARPS_RING or GEMV_BLOCK_WARPS_NVFP4, 4 -> 8);
#     slower in all six pairs -> delete the form for that dtype; else keep opt-in (the shapes
#     where it led in both rounds named).
# Past BUDGET_S (60) a step prints "skipped".  `sh scripts/device-gemv39.sh decide FILE` prints
# the decisions of a pairs file alone (lines "DTYPE ROUND FORM SHAPE PCT").
. scripts/device-common.sh
log="$out/gemv39.log"
start=$(date +%s) budget=${BUDGET_S:-60}
decide()
{
    awk '{ v[$1, $2, $3, $4] = $5; if (!(($1, $4) in s)) { s[$1, $4] = 1; shapes[$1] = shapes[$1] " " $4 }
           if (!($1 in seen)) { seen[$1] = 1; dts[++nd] = $1 } }
        END {
            for (g = 1; g <= nd; g++) {
                d = dts[g]; n = split(shapes[d], sh, " "); pairs = 0; slower = 0; lead = 0; led = ""
                for (i = 1; i <= n; i++) {
                    both = 1; got = 0
                    for (r = 1; r <= 2; r++) {
                        b = v[d, r, "default", sh[i]]; w = v[d, r, "w8", sh[i]]
                        if (b == "" || w == "" || b == "-" || w == "-") { both = 0; continue }
                        pairs++; got++; x = w - b
                        if (x < 0) slower++
                        if (x < 1) both = 0
                        printf "%s %s round %d: default %.1f, w8 %.1f (%+.1f)\n", d, sh[i], r, b, w, x
                    }
                    if (both && got == 2) { lead++; led = led " " sh[i] }
                }
                if (n == 3 && lead == 3 && pairs == 6)
                    printf "decides: %s make 8 warps the default (compile.c %s 4 -> 8)\n", d,
                        d == "bf16" ? "GEMV_BLOCK_WARPS_RING" : "GEMV_BLOCK_WARPS_NVFP4"
                else if (pairs == 6 && slower == 6)
                    printf "decides: %s delete 8 warps (slower in all 6 pairs)\n", d
                else
                    printf "decides: %s keep 8 warps opt-in (%d pairs, %d slower; led in both rounds at:%s)\n",
                        d, pairs, slower, led == "" ? " none" : led
            }
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
# one process's bench rows into the pairs file: DTYPE ROUND FORM, each row's shape and % of copy
bench()
{
    dt=$1 round=$2 form=$3
    device_late "bench $dt $form round $round" && return
    echo "-- $dt $form round $round $(el_s)"
    # (the setting exported inside the command substitution's subshell only)
    rows=$(GEMV_TIMEOUT=14
        [ "$form" = w8 ] && export CUTEC_GEMV_BLOCK_WARPS=8
        device_gemv --dtype "$dt")
    echo "$rows"
    echo "$rows" | grep -E "%|WRONG|failed" | awk -v d="$dt" -v r="$round" -v f="$form" '
        { s = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+x[0-9]+$/) { s = $i; break }
          l = ""; for (i = 1; i <= NF; i++) if ($i ~ /^L=/) { l = $i; sub(",", "", l) }
          v = $NF; if ($NF == "WRONG" || /failed/) v = "-"; sub("%", "", v)
          if (s != "") print d, r, f, s (l == "" || l == "L=1" ? "" : "," l), v }' >>"$out/gemv39.pairs"
}
run8() { echo "w8 $(export CUTEC_GEMV_BLOCK_WARPS=8; device_gemv_run "$@")"; }
pass()
{
    device_head
    device_gpu || return
    echo "== 1. 8 warps against float64 on the GPU (the default: every bench row below) $(el_s)"
    run8 --dtype bf16 --shape 4099x4104 --batch 2
    run8 --dtype f16 --shape 1000x5000 --splits 3
    run8 --dtype nvfp4 --shape 4100x8256 --batch 2
    run8 --dtype nvfp4 --shape 4100x8256 --ahead 1
    run8 --dtype nvfp4 --shape 4100x2048 --batch 3
    rm -f "$out/gemv39.pairs"
    echo "== 2. bench, two rounds in turns $(el_s)"
    bench bf16 1 default; bench bf16 1 w8; bench nvfp4 1 default; bench nvfp4 1 w8
    bench nvfp4 2 w8; bench nvfp4 2 default; bench bf16 2 w8; bench bf16 2 default
    device_end
    echo "== 3. decision (the rule in the header)"
    [ -s "$out/gemv39.pairs" ] && decide "$out/gemv39.pairs"
}
pass >"$log" 2>&1
tail -n 80 "$log"
