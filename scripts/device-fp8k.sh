#!/bin/sh
# fp8 block scales at 4096x7168x16384 and 8192^3 (issue 15 item 5): what is still undecided
# beside the library's loop (256 x 128 in 1x2 clusters, one partial set, late turns; "the
# default"; docs/gemm.md, "Scaled fp8"):
#   desc (CUTEC_WGMMA_DESC=stage, the default's tile): the wgmma descriptors' low word built
#      once (src/atom/wgmma_emit.c): ~40 instructions fewer between a turn and its batch;
#      session 37's first pass 1.015 / 1.000 of the default (kept opt-in).
# Each in processes of its own (the environment is read as a kernel is traced), two each;
# cuBLASLt (unscaled) in every process: rows compare as % of that process's cuBLASLt ("of
# cuBLAS").  For the count (decides nothing): the per-tensor kernel at 128 x 256 (no
# promotion: that wgmma shape's ceiling here).  (A from registers at 128 x 256, =regs and
# =sets, and 2x2 clusters were measured behind and are gone: bench/RESULTS.md, dec-fp8's
# section.)  About 45 s on one H200 after `make all tests`, no bench or check past BUDGET_S
# (50 s):
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024 (C row-major), every element, for the default and desc; a form not
#      checked right decides nothing;
#   2. the benches (each checks 256 samples of its rows against float64 before timing).
# Decides (the rule: default where it leads by 1% at both shapes), from the mean over two
# processes of desc / the default in % of cuBLAS at each shape:
#   at least 1.01 at both -> the block-scaled kernel's descriptors by stage (wgmma_emit.c's
#      choice is global: a per-kernel switch first);
#   at most 0.99 at both -> delete desc from this script (the option is not this area's);
#   else keep it opt-in.
#   ITERS=10 sh scripts/device-fp8k.sh          log: $OUT/fp8k.log (default build/device-out)
. scripts/device-common.sh
start=$(date +%s) budget=${BUDGET_S:-50} log="$out/fp8k.log" shapes=4096x7168x16384,8192
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
# pct NAME SIZE: the % of cuBLAS of the 256 x 128 1x2 row at SIZE (4096: the 4096x7168x16384
# row) in fp8k-NAME.txt, checked ok (else empty)
pct() { gemm_pct "$out/fp8k-$1.txt" "$2" "^hopper1x2(-t256x128x128)?[+]blk\$"; }
# ratio_at SIZE: "ok ratio figures": the mean of desc / the default over the two passes
ratio_at()
{
    ok def && ok desc && k=1 || k=0
    echo "$1 $k $(pct def "$1") $(pct desc "$1") $(pct def2 "$1") $(pct desc2 "$1")" |
        awk '{ if ($2 != 1 || NF < 6) { printf "0 0 %s:-\n", $1; exit }
               printf "1 %.4f %s:%s/%s->%s/%s\n", ($4 / $3 + $6 / $5) / 2, $1, $3, $5, $4, $6 }'
}
decide()
{
    echo "$(ratio_at 4096) $(ratio_at 8192)" >"$out/fp8k-ratios"
    awk '{ okf = $1 == 1 && $4 == 1; r4 = $2; r8 = $5; fig = $3 " " $6
           what = "stage descriptors (CUTEC_WGMMA_DESC=stage)"
           flip = "a per-kernel switch for the block-scaled kernel (wgmma_emit.c desc_per_stage is global)"
           if (!okf) printf "decides: %s not measured or not checked right (%s): keep it opt-in\n", what, fig
           else if (r4 >= 1.01 && r8 >= 1.01) printf "decides: %s (%s; %.3f / %.3f of the default): make it the default (%s)\n", what, fig, r4, r8, flip
           else if (r4 <= 0.99 && r8 <= 0.99) printf "decides: %s (%s; %.3f / %.3f of the default): behind at both shapes, delete it from this script\n", what, fig, r4, r8
           else printf "decides: %s (%s; %.3f / %.3f of the default): keep it opt-in\n", what, fig, r4, r8 }' \
        "$out/fp8k-ratios"
}
{
    gemm_gpu_head
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== $(el) s: 1. against float64 (every element, 1021x1016x1024, C row-major)"
    check def 256x128x128 1x2 ""
    check desc 256x128x128 1x2 CUTEC_WGMMA_DESC=stage
    echo "== 2. block scales at $shapes"
    def="--scale block --sizes $shapes --tile 256x128x128 --cluster 1x2"
    for pass in "" 2; do
        rows def$pass "" $def
        rows desc$pass CUTEC_WGMMA_DESC=stage $def
    done
    rows tensor "" --scale tensor --sizes 4096x7168x16384 --tile 128x256x128 --cluster 2x1
    echo "== $(el) s: the rules"
    decide
    echo "decides: nothing from the per-tensor row (no block scales)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
