#!/bin/sh
# fp8 block scales at 4096x7168x16384 and 8192^3 (issue 15 item 5; engineer fp8k): where the
# library's loop (256 x 128 in 1x2 clusters, one partial set, late turns; "the default") is
# short of cuBLASLt, and four forms timed beside it (docs/gemm.md, "Scaled fp8"; the count:
# bench/RESULTS.md, fp8k's section):
#   regs (CUTEC_GEMM_BLOCKSCALE_A=regs, 128 x 256 tiles in 2x1 clusters; a_in_regs() in
#      src/kernels/gemm/hopper_blockscale.c): each warpgroup's 64 x 256 as two 64 x 128 waves
#      along N (the registers of 256 x 128's waves: 128 sums, one partial set of 64), A's 64 x
#      128 of the k-tile loaded once by ldmatrix into registers and read by both waves' wgmmas
#      (RS), so shared memory gives 80 KB a k-tile to the tensor cores where 256 x 128 gives
#      96 KB (the per-tensor 128 x 256 kernel's 80, at 1,533-1,573 TFLOP/s);
#   sets (CUTEC_GEMM_BLOCKSCALE_A=sets, 128 x 256 2x1): the same with four 64 x 64 waves into
#      two partial sets of 32 that take turns (wave s + 1 issued before s is waited for and
#      promoted: the warpgroup's FFMAs under its own next wgmma), halves' loop without its
#      second read of A; no turns between the warpgroups;
#   desc (CUTEC_WGMMA_DESC=stage, the default's tile): the wgmma descriptors' low word built
#      once (src/atom/wgmma_emit.c): ~40 instructions fewer between a turn and its batch;
#   2x2 (the default's loop in 2x2 clusters): A and B both multicast, 24 KB of L2 a k-tile
#      an SM where 1x2 reads 32.
# Each form in processes of its own (the environment is read as a kernel is traced), two
# each, beside the default's two; cuBLASLt (unscaled) in every process: rows compare as % of
# that process's cuBLASLt ("of cuBLAS").  For the count (decide nothing): the default's and
# regs' FFMAs as NOPs (CUTEC_SASS_FFMA=nop, wrong by design), and the per-tensor kernel at 128
# x 128 and 128 x 256 (no promotion: those wgmma shapes' ceilings here).  About 85 s on one
# H200 after `make all tests`, no bench or check past BUDGET_S (78 s):
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024 (C row-major), every element, for each form (regs also at 1x1 and with
#      the loop without turns); a form not checked right decides nothing;
#   2. the benches (each checks 256 samples of its rows against float64 before timing).
# Decides (the rule: default where it leads by 1% at both shapes), from the mean over two
# processes of F / the default in % of cuBLAS at each shape:
#   at least 1.01 at both -> the default (of regs and sets, the one with the larger smaller
#      ratio): `a_by_default = A_REGS` / `A_SETS` in src/kernels/gemm/hopper_blockscale.c
#      (the library's tile follows it: 128 x 256 2x1 where M >= 1024 and N >= 256,
#      block_scaled() in hopper_auto.c); desc: the
#      block-scaled kernel's descriptors by stage (wgmma_emit.c's dflt is global: a
#      per-kernel switch first); 2x2: block_scaled()'s cluster 2x2;
#   at most 0.99 at both -> delete (regs, sets: the form; desc, 2x2: from this script, the
#      options are not this area's);
#   else keep opt-in.
#   ITERS=10 sh scripts/device-fp8k.sh          log: $OUT/fp8k.log (default build/device-out)
. scripts/device-common.sh
start=$(date +%s) budget=${BUDGET_S:-78} log="$out/fp8k.log" shapes=4096x7168x16384,8192
# rows NAME 'VAR=VALUE ...' ARGS...: a bench of ARGS under those variables ('': the default's
# environment), its table in $out/fp8k-NAME.txt (sh has no locals: names apart from the callers')
rows()
{
    rn=$1 rv=$2
    shift 2
    device_late "bench $rn" && : >"$out/fp8k-$rn.txt" && return
    echo "== $(el) s: $rn (${rv:-as the library runs it}): $*"
    # shellcheck disable=SC2086
    (if [ -n "$rv" ]; then export $rv; fi; CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 20 "$@") >"$out/fp8k-$rn.txt" 2>&1
    grep -v "^#" "$out/fp8k-$rn.txt"
}
# check FORM TILE CLUSTER 'VAR=VALUE ...': every element of a 1021x1016x1024 product against
# float64 on the GPU; FORM counts as checked right (ok FORM) once a check of it is and none fails
right= wrong=
check()
{
    device_late "run $*" && return
    # shellcheck disable=SC2086
    r=$(if [ -n "$4" ]; then export $4; fi; fp8_block_run --tile "$2" --cluster "$3")
    echo "$1 $2 $3 ($4): $r"
    case $r in *verified:*) right="$right $1 " ;; *) wrong="$wrong $1 " ;; esac
}
ok()
{
    case $wrong in *" $1 "*) return 1 ;; esac
    case $right in *" $1 "*) return 0 ;; esac
    return 1
}
# pct NAME SIZE CLUSTER TILE: the % of cuBLAS of that tile and cluster's row at SIZE (4096: the
# 4096x7168x16384 row) in fp8k-NAME.txt, checked ok (else empty; the bench names the library's
# tile without "-tBMxBNxBK")
pct() { gemm_pct "$out/fp8k-$1.txt" "$2" "^hopper$3(-t$4)?[+]blk\$"; }
# form_ratio FORM CLUSTER TILE SIZE: "ok ratio figures": the mean of FORM / the default over the
# two passes (the default: 256 x 128 1x2)
form_ratio()
{
    ok "$1" && k=1 || k=0
    d="1x2 256x128x128"
    echo "$4 $k $(pct def "$4" $d) $(pct "$1" "$4" "$2" "$3") $(pct def2 "$4" $d) $(pct "$1"2 "$4" "$2" "$3")" |
        awk '{ if ($2 != 1 || NF < 6) { printf "0 0 %s:-\n", $1; exit }
               printf "1 %.4f %s:%s/%s->%s/%s\n", ($4 / $3 + $6 / $5) / 2, $1, $3, $5, $4, $6 }'
}
decide()
{
    for f in "regs 2x1 128x256x128" "sets 2x1 128x256x128" "desc 1x2 256x128x128" "c22 2x2 256x128x128"; do
        set -- $f
        echo "$1 $(form_ratio $1 $2 $3 4096) $(form_ratio $1 $2 $3 8192)"
    done >"$out/fp8k-ratios"
    awk '{ name = $1; okf = $2 == 1 && $5 == 1; r4 = $3; r8 = $6; fig = $4 " " $7
           if (name == "regs" || name == "sets") {
               what = "A from registers at 128 x 256 2x1 (CUTEC_GEMM_BLOCKSCALE_A=" name ")"
               flip = "a_by_default = " (name == "regs" ? "A_REGS" : "A_SETS") " in hopper_blockscale.c, block_scaled() in hopper_auto.c following it; of regs and sets the one whose smaller ratio is larger"
               gone = "the form"
           } else if (name == "desc") {
               what = "stage descriptors (CUTEC_WGMMA_DESC=stage)"
               flip = "a per-kernel switch for the block-scaled kernel (wgmma_emit.c desc_per_stage is global)"
               gone = "it from this script (the option is not this area'"'"'s)"
           } else {
               what = "2x2 clusters"
               flip = "block_scaled() .cluster_m = 2, .cluster_n = 2, hopper_auto.c"
               gone = "it from this script"
           }
           if (!okf) printf "decides: %s not measured or not checked right (%s): keep it opt-in\n", what, fig
           else if (r4 >= 1.01 && r8 >= 1.01) printf "decides: %s (%s; %.3f / %.3f of the default): make it the default (%s)\n", what, fig, r4, r8, flip
           else if (r4 <= 0.99 && r8 <= 0.99) printf "decides: %s (%s; %.3f / %.3f of the default): behind at both shapes, delete %s\n", what, fig, r4, r8, gone
           else printf "decides: %s (%s; %.3f / %.3f of the default): keep it opt-in\n", what, fig, r4, r8 }' \
        "$out/fp8k-ratios"
}
{
    gemm_gpu_head
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== $(el) s: 1. against float64 (every element, 1021x1016x1024, C row-major)"
    check regs 128x256x128 2x1 CUTEC_GEMM_BLOCKSCALE_A=regs
    check regs 128x256x128 1x1 CUTEC_GEMM_BLOCKSCALE_A=regs
    check regs 128x256x128 2x1 "CUTEC_GEMM_BLOCKSCALE_A=regs CUTEC_GEMM_BLOCKSCALE_TURNS=0"
    check sets 128x256x128 2x1 CUTEC_GEMM_BLOCKSCALE_A=sets
    check desc 256x128x128 1x2 CUTEC_WGMMA_DESC=stage
    check c22 256x128x128 2x2 ""
    echo "== 2. block scales at $shapes"
    def="--scale block --sizes $shapes --tile 256x128x128 --cluster 1x2"
    wide="--scale block --sizes $shapes --tile 128x256x128 --cluster 2x1"
    c22="--scale block --sizes $shapes --tile 256x128x128 --cluster 2x2"
    regs=CUTEC_GEMM_BLOCKSCALE_A=regs sets=CUTEC_GEMM_BLOCKSCALE_A=sets desc=CUTEC_WGMMA_DESC=stage
    for pass in "" 2; do
        rows def$pass "" $def
        rows regs$pass $regs $wide
        rows sets$pass $sets $wide
        rows desc$pass $desc $def
        rows c22$pass "" $c22
    done
    one="--sizes 4096x7168x16384"
    rows nop CUTEC_SASS_FFMA=nop --scale block $one --tile 256x128x128 --cluster 1x2
    rows regsnop "$regs CUTEC_SASS_FFMA=nop" --scale block $one --tile 128x256x128 --cluster 2x1
    rows tensor "" --scale tensor $one --tile 128x128x128,128x256x128 --cluster 2x1
    echo "== $(el) s: the rules"
    decide
    echo "decides: nothing from the NOP rows (wrong by design) or the per-tensor rows (no block scales)"
    echo "== registers and spills (sm_90a), regs: $(CUTEC_GEMM_BLOCKSCALE_A=regs fp8_usage --scale block --tile 128x256x128 --cluster 2x1)"
    echo "sets: $(CUTEC_GEMM_BLOCKSCALE_A=sets fp8_usage --scale block --tile 128x256x128 --cluster 2x1)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
