#!/bin/sh
# fp8 block scales at 4096x7168x16384, 256-row tiles with the registers they need (issue 15
# item 5; engineer fp8i), two opt-in forms of the one-partial-set loop at 256 x 128
# (src/kernels/gemm/hopper_blockscale.c):
#   240 registers (CUTEC_GEMM_BLOCKSCALE_REGS=240; gemm_blockscale_consumer_regs): the
#      producer at 24 and the consumers at 240 instead of the GEMM's 40 / 232.  With each
#      thread its own rows' scales ptxas then issues the next k-tile's scale loads under the
#      last wave's batch (SASS, sm_90a; at 232 only after it), as shared rows (the default)
#      made it do at 232;
#   halves (CUTEC_GEMM_BLOCKSCALE_HALVES=1; halves()): each wave's batch in two 64-wide
#      halves of N (wgmma 64x64x32), two partial sets of 32 registers taking turns, each
#      sub-batch promoted while the next runs (wait_group 1, where the one-set loop waits for
#      each wave's batch with wait_group 0 and leans on the other warpgroup); A read from
#      shared memory twice a wave.  At 232 and at 240.
# Timed beside the default (shared rows, 232, one set), two passes each, with 128 x 128 2x1 in
# the default's processes, the library's call, cuBLASLt (unscaled) in every process and
# torch's block-scaled _scaled_mm.  The environment is read as a kernel is traced, so each
# form runs in a process of its own and rows compare as % of that process's cuBLASLt ("of
# cuBLAS").  About 70 s on one H200 after `make all tests`, no step past BUDGET_S (66 s):
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024, every element checked: 240 with own rows (2x1) and shared rows
#      (1x2), halves (2x1), halves at 240 (1x2); a form not checked right decides nothing;
#   2. the library's call; default, 240, halves, halves 240, 240 own rows, then default,
#      240, halves, halves 240 again (each bench checks 256 samples of its rows against
#      float64 before timing them); torch.
# Decides (the rules), for each form F of 240 / halves / halves 240, from the mean over its
# two passes of (F - default) in points of cuBLAS, 256 x 128 in 2x1 and in 1x2:
#   at least +1 in both clusters -> F the default (the best such F alone, by its smaller
#      gain): 240 `by_default = true` in gemm_blockscale_consumer_regs, halves
#      `by_default = true` in halves(), halves 240 both; behind by more than 1 in both ->
#      delete F; else F stays opt-in;
#   the tile: the fastest checked 256 x 128 row (any form, any pass) becomes the library's at
#      this shape if at least 2 points of cuBLAS above the library's call and the default
#      processes' 128 x 128 2x1 (their mean): block_scaled() in
#      src/kernels/gemm/hopper_auto.c, `.bm = 128` -> 256 and the row's cluster, with its
#      form's flips (own rows: shared_rows' by_default = false too); else 128 x 128 2x1 stays.
#   ITERS=10 sh scripts/device-fp8i.sh          log: $OUT/fp8i.log (default build/device-out)
. scripts/device-common.sh
log="$out/fp8i.log"
start=$(date +%s)
budget=${BUDGET_S:-66}
blk=4096x7168x16384
# rows NAME REGS ROWS HALVES ARGS...: a bench of block scales at $blk with ARGS under
# CUTEC_GEMM_BLOCKSCALE_REGS / _ROWS / _HALVES ("" each: the default), its table in
# $out/fp8i-NAME.txt
rows()
{
    n=$1 r=$2 s=$3 h=$4
    shift 4
    device_late "bench $n" && : >"$out/fp8i-$n.txt" && return
    echo "== $(el) s: $n (registers '${r}', rows '${s}', halves '${h}'): $*"
    CUTEC_GEMM_BLOCKSCALE_REGS=$r CUTEC_GEMM_BLOCKSCALE_ROWS=$s CUTEC_GEMM_BLOCKSCALE_HALVES=$h \
        CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 16 --sizes $blk --scale block "$@" >"$out/fp8i-$n.txt" 2>&1
    grep -v "^#" "$out/fp8i-$n.txt"
}
# check FORM CLUSTER REGS ROWS HALVES: 256 x 128 in that form, every element of a
# 1021x1016x1024 product against float64 on the GPU; FORM into fp8i-verified when right
check()
{
    device_late "run $*" && return
    r=$(export CUTEC_GEMM_BLOCKSCALE_REGS="$3" CUTEC_GEMM_BLOCKSCALE_ROWS="$4" CUTEC_GEMM_BLOCKSCALE_HALVES="$5" &&
        fp8_block_run --tile 256x128x128 --cluster "$2")
    echo "256x128x128 $2 $1: $r"
    echo "$r" | grep -q "verified:" && echo "$1" >>"$out/fp8i-verified"
}
# pct NAME TILE CLUSTER: the % of cuBLAS of that row of fp8i-NAME.txt, checked ok (else
# empty); a bench of one tile names its rows without it (hopper2x1+blk)
pct() { gemm_pct "$out/fp8i-$1.txt" "" "^hopper$3(-t$2)?[+]blk\$"; }
# gain FORM: "FORM ok lo hi mean pass-figures": (FORM - default) per cluster, the mean of
# the two passes (ok 0: not checked or not measured)
gain()
{
    grep -qx "$1" "$out/fp8i-verified" 2>/dev/null && ok=1 || ok=0
    for cl in 2x1 1x2; do
        echo "$cl $ok $(pct def 256x128x128 $cl) $(pct "$1" 256x128x128 $cl) $(pct def2 256x128x128 $cl) $(pct "$1"b 256x128x128 $cl)"
    done | awk -v f="$1" '{ n++; if ($2 != 1 || NF < 6) bad = 1; else { d = ($4 - $3 + $6 - $5) / 2; m += d / 2;
                  lo = (n == 1 || d < lo) ? d : lo; hi = (n == 1 || d > hi) ? d : hi }
                  r = r sprintf("%s:%s/%s->%s/%s;", $1, $3, $5, $4, $6) }
        END { printf "%s %d %.2f %.2f %.2f %s\n", f, !bad, lo, hi, m, r }'
}
decide()
{
    lib=$(gemm_pct "$out/fp8i-lib.txt" "" "^hopper")
    for f in r240 h h240; do gain $f; done >"$out/fp8i-gains"
    best=$(awk '$2 == 1 && $3 >= 1 { print $3, $1 }' "$out/fp8i-gains" | sort -n -r | awk '{ print $2; exit }')
    awk -v best="$best" '{ name = $1 == "r240" ? "240 registers" : $1 == "h" ? "halves" : "halves at 240";
            flip = "by_default = true in halves() and in gemm_blockscale_consumer_regs";
            if ($1 == "r240") flip = "by_default = true in gemm_blockscale_consumer_regs";
            if ($1 == "h") flip = "by_default = true in halves()";
            if ($2 != 1) printf "decides: %s not measured or not checked right (%s): keep it opt-in, measure again\n", name, $6;
            else if ($3 >= 1 && $1 == best) printf "decides: %s (%s %% of cuBLAS, %+.1f..%+.1f): make it the default (%s, hopper_blockscale.c)\n", name, $6, $3, $4, flip;
            else if ($3 >= 1) printf "decides: %s (%s %% of cuBLAS, %+.1f..%+.1f): ahead, but %s gains more: keep it opt-in\n", name, $6, $3, $4, best;
            else if ($4 < -1) printf "decides: %s (%s %% of cuBLAS, %+.1f..%+.1f): behind, delete the form\n", name, $6, $3, $4;
            else printf "decides: %s (%s %% of cuBLAS, %+.1f..%+.1f): not a point ahead in both, keep it opt-in\n", name, $6, $3, $4 }' "$out/fp8i-gains"
    # the tile: the fastest checked 256 x 128 row against the library and the default's 128 x 128 2x1
    base=$({ pct def 128x128x128 2x1; pct def2 128x128x128 2x1; } | awk '{ s += $1; n++ } END { if (n) printf "%.1f", s / n }')
    top=$(for n in def r240 h h240 r240own def2 r240b hb h240b; do
        f=${n%b}
        for cl in 2x1 1x2; do
            case $f in def | def2) ;; *) grep -qx "$f" "$out/fp8i-verified" 2>/dev/null || continue ;; esac
            p=$(pct "$n" 256x128x128 $cl)
            [ -n "$p" ] && echo "$n-$cl $p"
        done
    done | sort -k2 -n -r | head -n 1)
    if [ -z "$lib" ] || [ -z "$base" ] || [ -z "$top" ]; then
        echo "decides: the tile not measured (library '$lib', 128x128 2x1 '$base', best '$top'): keep 128 x 128 2x1, measure again"
    else echo "$top" | awk -v a="$lib" -v b="$base" '{ f = $1; sub("b?-.*", "", f); flip = "";
            if (f == "r240" || f == "h240" || f == "r240own") flip = flip ", gemm_blockscale_consumer_regs by_default = true";
            if (f == "h" || f == "h240") flip = flip ", halves() by_default = true";
            if (f == "r240own") flip = flip ", shared_rows() by_default = false";
            if ($2 >= a + 2 && $2 >= b + 2)
            printf "decides: 256x128 %s at %.1f%% of cuBLAS against the library %.1f / 128x128 2x1 %.1f%%: make it the library'"'"'s at this shape (hopper_auto.c block_scaled: .bm = 256 and the cluster%s; these flips replace the form lines)\n", $1, $2, a, b, flip;
        else printf "decides: the best 256x128 %s at %.1f%% of cuBLAS against the library %.1f / 128x128 2x1 %.1f%%: within 2 points, keep 128 x 128 2x1\n", $1, $2, a, b }'
    fi
}
{
    gemm_gpu_head
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    : >"$out/fp8i-verified"
    echo "== $(el) s: 1. 240 registers against float64 (every element, 1021x1016x1024, C row-major)"
    check r240own 2x1 240 own ""
    check r240 1x2 240 shfl ""
    check h 2x1 "" "" 1
    check h240 1x2 240 "" 1
    echo "== 2. block scales at $blk"
    rows lib "" "" ""
    t="--tile 256x128x128 --cluster 2x1,1x2"
    rows def "" "" "" --tile 128x128x128,256x128x128 --cluster 2x1,1x2
    rows r240 240 "" "" $t
    rows h "" "" 1 $t
    rows h240 240 "" 1 $t
    rows r240own 240 own "" $t
    rows def2 "" "" "" --tile 128x128x128,256x128x128 --cluster 2x1,1x2
    rows r240b 240 "" "" $t
    rows hb "" "" 1 $t
    rows h240b 240 "" 1 $t
    echo "== $(el) s: torch's block-scaled _scaled_mm, $blk (bench/torch_scaled_mm.py)"
    device_late torch || timeout 14 python3 bench/torch_scaled_mm.py --block e4m3 bf16 $blk 2>&1 | tail -n 3
    echo "== $(el) s: the rules"
    decide
    echo "== registers and spills (sm_90a), 256x128 1x2: default $(fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    echo "240: $(CUTEC_GEMM_BLOCKSCALE_REGS=240 fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    echo "halves at 240: $(CUTEC_GEMM_BLOCKSCALE_REGS=240 CUTEC_GEMM_BLOCKSCALE_HALVES=1 fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    # (ptxas's C7514: wgmmas serialized, each waited for alone; 0 for every form when committed)
    echo "wgmma serialized (C7514) in halves at 240: $(CUTEC_NO_CACHE=1 CUTEC_GEMM_BLOCKSCALE_REGS=240 \
        CUTEC_GEMM_BLOCKSCALE_HALVES=1 timeout 8 build/cutec compile gemm --dtype e4m3 --out-dtype bf16 --variant hopper \
        --layout tn --arch sm_90a --scale block --tile 256x128x128 --cluster 1x2 --emit usage 2>&1 | grep -c C7514)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
