#!/bin/sh
# gemv39's pass on a GPU machine (issue 17), at most 60 s on one H200 after `make all tests`;
# log $OUT/gemv39.log.  One opt-in form, `CUTEC_GEMV_BLOCK_WARPS=8` (docs/gemv.md, "Blocks of 8
# warps"): NVFP4's register forms in blocks of 8 warps (32 rows) instead of 4, half the blocks
# at the same warps, registers and bytes in flight an SM.
# The mid pass (H200, 2026-11-28 08:34, one round, each form its own process, % of the copy):
# NVFP4 (7168,16384,1) default 72.6, 8 warps 69.8; bf16's ring in 8 warps 91.0 / 89.0 / 93.7
# against 90.5 / 89.9 / 93.6 at 8192x8192 / 16384x4096 / 4096x16384 (deleted: no faster).  The
# other two NVFP4 shapes did not fit its budget (a process's float64 checks of the three shapes
# take 10-14 s), so this pass times them, each form one process a shape, two rows in it
# (`--forms lib,lib`: rounds 1 and 2, the first run checked against float64):
#  1. 8 warps on the GPU against float64 first (`cutec run gemv`, odd sizes: rows past a block,
#     batches, two ahead (L=2: 514 blocks), one ahead, a k-tile at a time);
#  2. NVFP4 (4096,7168,8) and (7168,2048,4), the default and 8 warps, then (7168,16384,1) again
#     where the budget leaves room;
#  3. "decides:" over the mid pass's pair and these: a shape where every pair (two at least) is
#     +1 point or more leads; all three lead -> make default (compile.c GEMV_BLOCK_WARPS_NVFP4,
#     4 -> 8); none leads -> delete 8 warps (the form does not pay); else keep it opt-in, the
#     shapes that led named (a default by shape: nvfp4.c's form_many for the blocks of 6 an SM).
# Past BUDGET_S (60) a step prints "skipped".  `sh scripts/device-gemv39.sh decide FILE` prints
# the decisions of a pairs file alone (lines "DTYPE ROUND FORM SHAPE PCT").
. scripts/device-common.sh
log="$out/gemv39.log"
start=$(date +%s) budget=${BUDGET_S:-60}
decide()
{
    awk '{ v[$1, $2, $3, $4] = $5; if (!(($1, $4) in s)) { s[$1, $4] = 1; shapes[$1] = shapes[$1] " " $4 }
           if (!(($1, $2) in rr)) { rr[$1, $2] = 1; rounds[$1] = rounds[$1] " " $2 }
           if (!($1 in seen)) { seen[$1] = 1; dts[++nd] = $1 } }
        END {
            for (g = 1; g <= nd; g++) {
                d = dts[g]; n = split(shapes[d], sh, " "); nr = split(rounds[d], rs, " "); lead = 0; led = ""
                for (i = 1; i <= n; i++) {
                    all = 1; got = 0
                    for (r = 1; r <= nr; r++) {
                        b = v[d, rs[r], "default", sh[i]]; w = v[d, rs[r], "w8", sh[i]]
                        if (b == "" || w == "") continue
                        if (b == "-" || w == "-") { all = 0; continue }
                        got++; x = w - b
                        if (x < 1) all = 0
                        printf "%s %s round %s: default %.1f, w8 %.1f (%+.1f)\n", d, sh[i], rs[r], b, w, x
                    }
                    if (all && got >= 2) { lead++; led = led " " sh[i] }
                }
                if (n == 3 && lead == 3)
                    printf "decides: %s make 8 warps the default (compile.c GEMV_BLOCK_WARPS_NVFP4 4 -> 8)\n", d
                else if (lead == 0)
                    printf "decides: %s delete 8 warps (it led at none of %d shapes)\n", d, n
                else
                    printf "decides: %s keep 8 warps opt-in (led at:%s)\n", d, led
            }
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
# one process's two rows (rounds 1 and 2) of one shape into the pairs file: DTYPE ROUND FORM
# SHAPE PCT ("-" for a wrong or missing row)
bench()
{
    dt=$1 form=$2 name=$3
    shift 3
    device_late "bench $dt $form $*" && return
    echo "-- $dt $form $* $(el_s)"
    # (the setting exported inside the command substitution's subshell only)
    rows=$(GEMV_TIMEOUT=${T:-20}
        [ "$form" = w8 ] && export CUTEC_GEMV_BLOCK_WARPS=8
        device_gemv --dtype "$dt" "$@" --forms lib,lib)
    echo "$rows"
    echo "$rows" | grep -E "%|WRONG|failed" | awk -v d="$dt" -v f="$form" -v s="$name" '
        { v = $NF; if ($NF == "WRONG" || /failed/) v = "-"; sub("%", "", v); print d, NR, f, s, v }' >>"$out/gemv39.pairs"
}
run8() { echo "w8 $(export CUTEC_GEMV_BLOCK_WARPS=8; device_gemv_run "$@")"; }
pass()
{
    device_head
    device_gpu || return
    echo "== 1. 8 warps against float64 on the GPU (the default: every bench row below) $(el_s)"
    run8 --dtype nvfp4 --shape 4100x8256 --batch 2
    run8 --dtype nvfp4 --shape 4100x8256 --ahead 1
    run8 --dtype nvfp4 --shape 4100x2048 --batch 3
    echo "nvfp4 mid default 7168x16384 72.6" >"$out/gemv39.pairs"
    echo "nvfp4 mid w8 7168x16384 69.8" >>"$out/gemv39.pairs"
    echo "== 2. bench, a process a form and shape, two rows each $(el_s)"
    bench nvfp4 default 4096x7168,L=8 --shape 4096x7168 --batch 8
    bench nvfp4 w8 4096x7168,L=8 --shape 4096x7168 --batch 8
    T=12 bench nvfp4 w8 7168x2048,L=4 --shape 7168x2048 --batch 4
    T=12 bench nvfp4 default 7168x2048,L=4 --shape 7168x2048 --batch 4
    T=10 bench nvfp4 default 7168x16384 --shape 7168x16384
    T=10 bench nvfp4 w8 7168x16384 --shape 7168x16384
    device_end
    echo "== 3. decision (the rule in the header)"
    decide "$out/gemv39.pairs"
}
pass >"$log" 2>&1
tail -n 80 "$log"
