#!/bin/sh
# fp8 block scales at 4096x7168x16384 (issue 15 item 5; engineer fp8h): the tiles the count
# names (docs/gemm.md "The count at 4096 x 7168"), each timed beside the library's tile
# (128 x 128, two partial sets, 2x1) in one process with cuBLASLt (unscaled):
#   256 x 128  DeepGEMM's pick at this shape (its cost model): 896 tiles, 6.8 waves on 132 SMs
#              (97%, as 128 x 128's 13.6), A and B loaded a flop 0.75 times 128 x 128's;
#              one partial set (the waves loop), in 1x1, 2x1 (B multicast) and 1x2 (A's
#              32 KB multicast, A being the larger operand of this tile);
#   128 x 160 / 128 x 176  1,440 / 1,312 tiles, 10.9 / 9.94 waves (98.7%), one partial set;
#   256 x 128 staged (--scale-mul staged: the scales by cp.async three k-tiles ahead);
#   shared rows (CUTEC_GEMM_BLOCKSCALE_ROWS=shfl, new, opt-in): a warp loads its rows' scales
#              once, lane L the warp's row L % 16 of wave L / 16, and shuffles them to the
#              threads holding those rows: one load of sa a k-tile and one live pointer,
#              where the register loop has one a row. At 256 x 128 ptxas otherwise issues
#              kt + 1's loads after kt's last batch (their addresses need registers the batch
#              holds) and the next k-tile's first product waits for them before its first
#              wgmma (SASS, sm_90a); at 128 x 128 it is 2 loads a k-tile for 3.
# and two readings that decide nothing: the FFMAs issued as NOPs (CUTEC_SASS_FFMA=nop, results
# wrong by design) at 128 x 128 and 256 x 128, what the promotion costs in each loop; the
# per-tensor kernel at 128 x 128 and 128 x 256 (no promotion at all: the ceiling of a tile).
# About 50 s on one H200 after `make all tests`, no step starting past BUDGET_S (default 64 s):
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024, C row-major, every element checked, for each form the rule may pick;
#   2. the library's call; the tiles (each row's 256 samples checked against float64 before it
#      is timed); shared rows; torch's block-scaled _scaled_mm (bench/torch_scaled_mm.py);
#      then the NOP and per-tensor rows: each list in a process of its own with cuBLASLt,
#      rows compared as fractions of that process's cuBLASLt ("of cuBLAS").
# Decides (the rules):
#   the tile: the fastest row checked right (step 1 and its bench check) becomes the
#      library's at this shape if it is at least 2 points of cuBLAS above both the 128 x 128
#      2x1 row and the library's call; else 128 x 128 2x1 stays. The flip is one line:
#      block_scaled() in src/kernels/gemm/hopper_auto.c, `.bm = 128, .bn = 128`, the cluster
#      (and .scale_mul for a staged row; hop21's file: the lead's);
#   shared rows: 1 point of cuBLAS above both 128 x 128 2x1 rows without them (the library's
#      call, the explicit tile), checked right: the default (`by_default = true` in
#      shared_rows(), src/kernels/gemm/hopper_blockscale.c); more than 1 point below both:
#      delete; else keep opt-in.
#   NOP and per-tensor rows decide nothing.
#   ITERS=10 sh scripts/device-fp8h.sh          log: $OUT/fp8h.log (default build/device-out)
. scripts/device-common.sh
log="$out/fp8h.log"
start=$(date +%s)
budget=${BUDGET_S:-64}
blk=4096x7168x16384
el() { echo $(($(date +%s) - start)); }
quiet() { grep -v "^# \(check\|time\|index\|  (allowed\|cuBLAS:\|e4m3 ->\|each variant\|NVIDIA\)"; }
# rows NAME ARGS...: a bench of block scales at $blk with ARGS (no torch), its table in
# $out/fp8h-NAME.txt, shown without its notes
rows()
{
    n=$1
    shift
    device_late "bench $n" && : >"$out/fp8h-$n.txt" && return
    echo "== $(el) s: $n: $*"
    CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 16 --sizes $blk "$@" >"$out/fp8h-$n.txt" 2>&1
    quiet <"$out/fp8h-$n.txt" | grep -v "^#"
}
# check TILE CLUSTER [MUL]: every element of a 1021x1016x1024 product against float64 on the
# GPU (MUL: a --scale-mul); its name in fp8h-verified ends in $tag (shared rows: +shfl)
check()
{
    device_late "run $*" && return
    r=$(timeout 12 stdbuf -oL build/cutec run gemm --dtype e4m3 --out-dtype bf16 --layout tnt --variant hopper \
        --scale block --m 1021 --n 1016 --k 1024 --tile "$1" --cluster "$2" ${3:+--scale-mul $3} 2>&1 |
        tail -n 2 | tr '\n' ' ')
    echo "$*${tag:-}: $r"
    echo "$r" | grep -q "verified:" && echo "hopper$2-t$1${3:+-mul$3}${tag:-}" >>"$out/fp8h-verified"
}
# ok_rows FILE [TAG]: "NAME TFLOP/s %-of-cuBLAS" for each hopper row of a bench checked ok,
# its name without "+blk" and with TAG
ok_rows()
{
    awk -v tag="${2:-}" '$2 ~ /^hopper/ && / ok/ { p = $5; sub("%", "", p); n = $2; sub("[+]blk", "", n);
        print n tag, $4, p }' "$1"
}
decide()
{
    lib=$(ok_rows "$out/fp8h-lib.txt" | awk '{ print $3; exit }')
    base=$(ok_rows "$out/fp8h-tiles.txt" | awk '$1 ~ /^hopper2x1-t128x128x128/ { print $3; exit }')
    best=$({ for f in tiles wide staged; do ok_rows "$out/fp8h-$f.txt"; done; ok_rows "$out/fp8h-shfl.txt" +shfl; } |
        while read -r name t p; do grep -qx "$name" "$out/fp8h-verified" 2>/dev/null || [ "$name" = hopper2x1-t128x128x128 ] &&
            echo "$name $t $p"; done | sort -k3 -n -r | head -n 1)
    if [ -z "$lib" ] || [ -z "$base" ] || [ -z "$best" ]; then
        echo "decides: not measured (library $lib, 128x128 2x1 $base, best '$best'): keep 128 x 128 2x1, measure again"
    else echo "$best" | awk -v a="$lib" -v b="$base" '{ n = $1; t = $2; p = $3 }
    END {
        if (n !~ /^hopper2x1-t128x128x128/ && p >= a + 2 && p >= b + 2)
            printf "decides: %s %.1f TFLOP/s, %.1f%% of cuBLAS against the library %.1f / 128x128 2x1 %.1f%%: make it the library'"'"'s at this shape (hopper_auto.c block_scaled: the row'"'"'s tile, cluster and --scale-mul; +shfl: shared rows too)\n", n, t, p, a, b;
        else printf "decides: the best tile %s at %.1f%% of cuBLAS against the library %.1f / 128x128 2x1 %.1f%%: within 2 points, keep 128 x 128 2x1\n", n, p, a, b }'
    fi
    sh=$(ok_rows "$out/fp8h-shfl.txt" +shfl | awk '$1 == "hopper2x1-t128x128x128+shfl" { print $3 }')
    if [ -z "$sh" ] || [ -z "$lib" ] || [ -z "$base" ] || ! grep -qx "hopper2x1-t128x128x128+shfl" "$out/fp8h-verified"; then
        echo "decides: shared rows not measured or not checked right (${sh:-no row}): keep opt-in"
        return
    fi
    awk -v s="$sh" -v a="$lib" -v b="$base" 'BEGIN {
        hi = a > b ? a : b; lo = a < b ? a : b;
        if (s >= hi + 1) printf "decides: shared rows %.1f%% of cuBLAS at 128x128 2x1 against %.1f / %.1f%%: make them the default (shared_rows: by_default = true)\n", s, a, b;
        else if (s > lo - 1) printf "decides: shared rows %.1f%% against %.1f / %.1f%%: within a point, keep opt-in\n", s, a, b;
        else printf "decides: shared rows %.1f%% against %.1f / %.1f%%: slower, delete\n", s, a, b }'
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; budget=-1; fi
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    : >"$out/fp8h-verified"
    echo "== $(el) s: 1. the new tiles against float64 (every element, 1021x1016x1024, C row-major)"
    check 256x128x128 1x1
    check 256x128x128 2x1
    check 256x128x128 1x2
    check 128x160x128 2x1
    check 128x176x128 2x1
    check 256x128x128 2x1 staged
    check 256x128x128 1x2 staged
    (
        export CUTEC_GEMM_BLOCKSCALE_ROWS=shfl tag=+shfl
        check 128x128x128 2x1
        check 256x128x128 2x1
        check 256x128x128 1x2
    )
    echo "== 2. block scales at $blk"
    rows lib --scale block
    rows tiles --scale block --tile 128x128x128,256x128x128 --cluster 2x1,1x1,1x2
    (export CUTEC_GEMM_BLOCKSCALE_ROWS=shfl && rows shfl --scale block --tile 128x128x128,256x128x128 --cluster 2x1,1x2)
    rows wide --scale block --tile 128x160x128,128x176x128 --cluster 2x1
    rows staged --scale block --tile 256x128x128 --cluster 2x1,1x2 --scale-mul staged
    echo "== $(el) s: torch's block-scaled _scaled_mm, $blk (bench/torch_scaled_mm.py)"
    device_late torch || timeout 14 python3 bench/torch_scaled_mm.py --block e4m3 bf16 $blk 2>&1 | tail -n 3
    (export CUTEC_SASS_FFMA=nop && rows nop --scale block --tile 128x128x128,256x128x128 --cluster 2x1)
    rows tensor --scale tensor --tile 128x128x128,128x256x128 --cluster 2x1
    echo "== $(el) s: the rules"
    decide
    echo "decides: nothing from the NOP rows (wrong by design) or the per-tensor rows (no block scales)"
    echo "== registers and spills (sm_90a): 256x128 1x2: $(fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    echo "shared rows: $(export CUTEC_GEMM_BLOCKSCALE_ROWS=shfl && fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
