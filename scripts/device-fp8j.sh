#!/bin/sh
# fp8 block scales at 4096x7168x16384 and 8192^3 (issue 15 item 5; engineer fp8j): forms of
# the one-partial-set loop (src/kernels/gemm/hopper_blockscale.c) at the library's tile
# there, 256 x 128 (1x2; 2x1 timed beside it), against the loop without turns
# (CUTEC_GEMM_BLOCKSCALE_TURNS=0, "the old loop"; the default until session 36's mid pass):
#   turns (CUTEC_GEMM_BLOCKSCALE_TURNS=1; turns()): the two consumer warpgroups issue their
#      wave batches in turn by named barriers 6 and 7, so one's batch queues behind the
#      other's and it promotes (its 64 FFMAs) while the other's runs; without them nothing
#      keeps the two out of phase, and in phase both promote at once with the tensor core
#      idle.  B's scale through a vector register (below) comes with it;
#   sb by lane (CUTEC_GEMM_BLOCKSCALE_SB=lane; lane_blocks()): B's scale (one a k-tile for
#      the tile) loaded into a vector register instead of moved into a uniform one (its R2UR
#      waited for the load after the last wave's wgmmas), the default with turns;
#   late turns (CUTEC_GEMM_BLOCKSCALE_TURNS=late, THE DEFAULT since the mid pass: 1.017 /
#      1.012 of the old loop there): the turns from a tile's second k-tile on, so that
#      warpgroup 0 may run a k-tile and a batch ahead at a tile's start (under turns 1's
#      epilogue stood between 0's first two batches).
# The second early pass (22:04) had the warpgroups made to meet before every batch (in phase)
# 7 points behind: deleted.
# Each form in processes of its own (the environment is read as a kernel is traced), the
# old loop's and each form's twice, cuBLASLt (unscaled) in every process: rows compare as % of
# that process's cuBLASLt ("of cuBLAS").  The FFMAs as NOPs (CUTEC_SASS_FFMA=nop, wrong by
# design) in the old loop and in late turns at 1x2: what the loop costs without its promotion.
# torch's block-scaled _scaled_mm at both shapes.  About 85 s on one H200 after `make all
# tests`, no step past BUDGET_S (82 s):
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024 (C row-major), every element: turns 1x2 and 2x1, turns 128 x 160,
#      late turns 1x2 and 128 x 160, sb by lane 1x2; a form not checked right decides nothing;
#   2. the benches (each checks 256 samples of its rows against float64 before timing).
# Decides (the rules), from the mean over two passes of F / the old loop in % of cuBLAS at
# 256 x 128 1x2 (the library's pick), at each shape:
#   late turns: at least 1.00 at both shapes -> stay the default; else revert (turns()
#      `by_default = TURNS_NONE`, hopper_blockscale.c);
#   turns: at least 1.01 at both and its smaller ratio 0.01 above late's -> the default
#      instead (`by_default = TURNS_ALL`); else opt-in;
#   sb by lane (without turns): at least 1.01 at both -> lane_blocks() `by_default = 1`; at
#      most 0.99 at both -> delete the option (turns keep it); else opt-in.
#   ITERS=10 sh scripts/device-fp8j.sh          log: $OUT/fp8j.log (default build/device-out)
. scripts/device-common.sh
log="$out/fp8j.log"
start=$(date +%s)
budget=${BUDGET_S:-82}
shapes=4096x7168x16384,8192
# rows NAME TURNS SB FFMA ARGS...: a bench of block scales under CUTEC_GEMM_BLOCKSCALE_TURNS /
# _SB and CUTEC_SASS_FFMA ("" each: the default), its table in $out/fp8j-NAME.txt
# (sh has no locals: the functions' variables are named apart from the list's below)
rows()
{
    rn=$1 rt=$2 rs=$3 rf=$4
    shift 4
    device_late "bench $rn" && : >"$out/fp8j-$rn.txt" && return
    echo "== $(el) s: $rn (turns '${rt}', sb '${rs}', ffma '${rf}'): $*"
    CUTEC_GEMM_BLOCKSCALE_TURNS=$rt CUTEC_GEMM_BLOCKSCALE_SB=$rs CUTEC_SASS_FFMA=$rf \
        CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 20 --scale block "$@" >"$out/fp8j-$rn.txt" 2>&1
    grep -v "^#" "$out/fp8j-$rn.txt"
}
# check FORM TILE CLUSTER TURNS SB: every element of a 1021x1016x1024 product against float64
# on the GPU; FORM into fp8j-verified when right (and only if every check of FORM is)
check()
{
    device_late "run $*" && return
    r=$(export CUTEC_GEMM_BLOCKSCALE_TURNS="$4" CUTEC_GEMM_BLOCKSCALE_SB="$5" && fp8_block_run --tile "$2" --cluster "$3")
    echo "$2 $3 $1: $r"
    if echo "$r" | grep -q "verified:"; then grep -qx "$1 bad" "$out/fp8j-verified" || echo "$1" >>"$out/fp8j-verified"
    else echo "$1 bad" >>"$out/fp8j-verified"; fi
}
ok() { grep -qx "$1" "$out/fp8j-verified" 2>/dev/null && ! grep -qx "$1 bad" "$out/fp8j-verified"; }
# pct NAME SIZE CLUSTER: the % of cuBLAS of 256 x 128 in that cluster at SIZE (4096: the
# 4096x7168x16384 row) in fp8j-NAME.txt, checked ok (else empty)
pct() { gemm_pct "$out/fp8j-$1.txt" "$2" "^hopper$3(-t256x128x128)?[+]blk\$"; }
# ratio FORM SIZE: "SIZE ok ratio figures": the mean of FORM / default over the two passes at 1x2
ratio()
{
    ok "$1" && k=1 || k=0
    echo "$2 $k $(pct def "$2" 1x2) $(pct "$1" "$2" 1x2) $(pct def2 "$2" 1x2) $(pct "$1"2 "$2" 1x2)" |
        awk '{ if ($2 != 1 || NF < 6) { printf "%s 0 0 %s:-\n", $1, $1; exit }
               printf "%s 1 %.4f %s:%s/%s->%s/%s\n", $1, ($4 / $3 + $6 / $5) / 2, $1, $3, $5, $4, $6 }'
}
decide()
{
    for f in late turns lane; do
        echo "$f $(ratio $f 4096) $(ratio $f 8192)"
    done >"$out/fp8j-ratios"
    awk 'function lo(r) { return r[4] < r[8] ? r[4] : r[8] }
        { for (i = 1; i <= 9; i++) v[$1, i] = $i; fig[$1] = $5 " " $9 }
        END {
            okl = v["late", 3] == 1 && v["late", 7] == 1; l4 = v["late", 4]; l8 = v["late", 8];
            if (!okl) printf "decides: late turns not measured or not checked right (%s): keep them the default, measure again\n", fig["late"];
            else if (l4 >= 1.0 && l8 >= 1.0) printf "decides: late turns (%s; %.3f / %.3f of the old loop): stay the default\n", fig["late"], l4, l8;
            else printf "decides: late turns (%s; %.3f / %.3f of the old loop): revert (by_default = TURNS_NONE in turns(), hopper_blockscale.c)\n", fig["late"], l4, l8;
            okt = v["turns", 3] == 1 && v["turns", 7] == 1; t4 = v["turns", 4]; t8 = v["turns", 8];
            tl = t4 < t8 ? t4 : t8; ll = okl ? (l4 < l8 ? l4 : l8) : 0;
            if (!okt) printf "decides: turns not measured or not checked right (%s): keep them opt-in\n", fig["turns"];
            else if (t4 >= 1.01 && t8 >= 1.01 && tl >= ll + 0.01) printf "decides: turns (%s; %.3f / %.3f of the old loop, late %.3f / %.3f): make them the default instead of late (by_default = TURNS_ALL in turns(), hopper_blockscale.c)\n", fig["turns"], t4, t8, l4, l8;
            else printf "decides: turns (%s; %.3f / %.3f of the old loop, late %.3f / %.3f): keep them opt-in\n", fig["turns"], t4, t8, l4, l8;
            okb = v["lane", 3] == 1 && v["lane", 7] == 1; b4 = v["lane", 4]; b8 = v["lane", 8];
            if (!okb) printf "decides: sb by lane not measured or not checked right (%s): keep it opt-in\n", fig["lane"];
            else if (b4 >= 1.01 && b8 >= 1.01) printf "decides: sb by lane without turns (%s; %.3f / %.3f): make it the default (by_default = 1 in lane_blocks(), hopper_blockscale.c)\n", fig["lane"], b4, b8;
            else if (b4 <= 0.99 && b8 <= 0.99) printf "decides: sb by lane without turns (%s; %.3f / %.3f): behind at both shapes, delete the option (turns keep B'"'"'s scale by lane)\n", fig["lane"], b4, b8;
            else printf "decides: sb by lane without turns (%s; %.3f / %.3f): keep it opt-in\n", fig["lane"], b4, b8 }' \
        "$out/fp8j-ratios"
}
{
    gemm_gpu_head
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    : >"$out/fp8j-verified"
    echo "== $(el) s: 1. against float64 (every element, 1021x1016x1024, C row-major)"
    check turns 256x128x128 1x2 1 ""
    check turns 256x128x128 2x1 1 ""
    check turns 128x160x128 2x1 1 ""
    check lane 256x128x128 1x2 0 lane
    check late 256x128x128 1x2 late ""
    check late 128x160x128 2x1 late ""
    echo "== 2. block scales at $shapes, 256 x 128"
    both="--sizes $shapes --tile 256x128x128 --cluster 1x2,2x1"
    rows def 0 "" "" $both
    rows turns 1 "" "" $both
    rows late late "" "" $both
    rows lane 0 lane "" $both
    rows def2 0 "" "" $both
    rows turns2 1 "" "" $both
    rows late2 late "" "" $both
    rows lane2 0 lane "" $both
    one="--sizes 4096x7168x16384 --tile 256x128x128 --cluster 1x2"
    rows nop 0 "" nop $one
    rows latenop late "" nop $one
    echo "== $(el) s: torch's block-scaled _scaled_mm (bench/torch_scaled_mm.py)"
    device_late torch || timeout 16 python3 bench/torch_scaled_mm.py --block e4m3 bf16 4096x7168x16384 8192x8192x8192 2>&1 |
        tail -n 3
    echo "== $(el) s: the rules"
    decide
    echo "== registers and spills (sm_90a), 256x128 1x2: default (late turns) $(fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    echo "old loop: $(CUTEC_GEMM_BLOCKSCALE_TURNS=0 fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    echo "turns: $(CUTEC_GEMM_BLOCKSCALE_TURNS=1 fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    echo "sb by lane: $(CUTEC_GEMM_BLOCKSCALE_TURNS=0 CUTEC_GEMM_BLOCKSCALE_SB=lane fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
