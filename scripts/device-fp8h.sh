#!/bin/sh
# fp8 block scales at 4096x7168x16384 (issue 15 item 5; engineer fp8h): the tiles the count
# names (docs/gemm.md "The count at 4096 x 7168"), each timed beside the library's tile
# (128 x 128, two partial sets, 2x1) in one process with cuBLASLt (unscaled):
#   256 x 128  DeepGEMM's pick at this shape (its cost model): 896 tiles, 6.8 waves on 132 SMs
#              (97%, as 128 x 128's 13.6), A and B loaded a flop 0.75 times 128 x 128's;
#              one partial set (the waves loop), in 1x1, 2x1 (B multicast) and 1x2 (A's
#              32 KB multicast, A being the larger operand of this tile);
#   128 x 160 / 128 x 176  1,440 / 1,312 tiles, 10.9 / 9.94 waves (98.7%), one partial set;
#   256 x 128 staged (--scale-mul staged: the scales by cp.async three k-tiles ahead): in the
#              register loop ptxas issues kt + 1's scale loads after kt's last batch has
#              retired (their 64-bit addresses need registers the batch holds), so the
#              product before the next k-tile's first batch may wait for L2 (SASS, sm_90a).
# and two readings that decide nothing: the FFMAs issued as NOPs (CUTEC_SASS_FFMA=nop, results
# wrong by design) at 128 x 128 and 256 x 128, what the promotion costs in each loop; the
# per-tensor kernel at 128 x 128 and 128 x 256 (no promotion at all: the ceiling of a tile).
# About 55 s on one H200 after `make all tests`, no step starting past BUDGET_S (default 66 s):
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024, C row-major, every element checked, for each new tile and cluster;
#   2. the library's call; the tiles (each row's 256 samples checked against float64 before it
#      is timed); the NOP rows; the per-tensor rows: each list in a process of its own with
#      cuBLASLt; rows compared as fractions of that process's cuBLASLt ("of cuBLAS");
#   3. torch's block-scaled _scaled_mm (bench/torch_scaled_mm.py).
# Decides (the rule): the fastest tile row checked right on the GPU (step 1 and its bench
# check) becomes the library's tile at this shape if it is at least 2 points of cuBLAS above
# both the 128 x 128 2x1 row and the library's call; else the library keeps 128 x 128 2x1.
# The flip is one line: block_scaled() in src/kernels/gemm/hopper_auto.c, `.bm = 128, .bn = 128`,
# the cluster (and .scale_mul for a staged row; hop21's file: the lead's). NOP and per-tensor rows decide nothing.
#   ITERS=10 sh scripts/device-fp8h.sh          log: $OUT/fp8h.log (default build/device-out)
. scripts/device-common.sh
log="$out/fp8h.log"
start=$(date +%s)
budget=${BUDGET_S:-66}
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
    CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 20 --sizes $blk "$@" >"$out/fp8h-$n.txt" 2>&1
    quiet <"$out/fp8h-$n.txt" | grep -v "^#"
}
# check TILE CLUSTER [MUL]: every element of a 1021x1016x1024 product against float64 on the
# GPU (MUL: a --scale-mul)
check()
{
    device_late "run $*" && return
    r=$(timeout 12 stdbuf -oL build/cutec run gemm --dtype e4m3 --out-dtype bf16 --layout tnt --variant hopper \
        --scale block --m 1021 --n 1016 --k 1024 --tile "$1" --cluster "$2" ${3:+--scale-mul $3} 2>&1 |
        tail -n 2 | tr '\n' ' ')
    echo "$*: $r"
    echo "$r" | grep -q "verified:" && echo "hopper$2-t$1${3:+-mul$3}" >>"$out/fp8h-verified"
}
# "NAME TFLOP/s %-of-cuBLAS" for each hopper row checked ok in the bench files given
ok_rows() { awk '$2 ~ /^hopper/ && / ok/ { p = $5; sub("%", "", p); print $2, $4, p }' "$@"; }
decide()
{
    lib=$(ok_rows "$out/fp8h-lib.txt" | awk '{ print $3; exit }')
    base=$(ok_rows "$out/fp8h-tiles.txt" | awk '$1 ~ /^hopper2x1-t128x128x128/ { print $3; exit }')
    best=$(ok_rows "$out/fp8h-tiles.txt" "$out/fp8h-wide.txt" "$out/fp8h-staged.txt" | sed 's/+blk//' |
        while read -r name t p; do grep -qx "$name" "$out/fp8h-verified" 2>/dev/null || [ "$name" = hopper2x1-t128x128x128 ] &&
            echo "$name $t $p"; done | sort -k3 -n -r | head -n 1)
    if [ -z "$lib" ] || [ -z "$base" ] || [ -z "$best" ]; then
        echo "decides: not measured (library $lib, 128x128 2x1 $base, best '$best'): keep 128 x 128 2x1, measure again"
        return
    fi
    echo "$best" | awk -v a="$lib" -v b="$base" '{ n = $1; t = $2; p = $3 }
    END {
        if (n != "hopper2x1-t128x128x128" && p >= a + 2 && p >= b + 2)
            printf "decides: %s %.1f TFLOP/s, %.1f%% of cuBLAS against the library %.1f / 128x128 2x1 %.1f%%: make it the library'"'"'s at this shape (hopper_auto.c block_scaled: the row'"'"'s tile, cluster and --scale-mul)\n", n, t, p, a, b;
        else printf "decides: the best tile %s at %.1f%% of cuBLAS against the library %.1f / 128x128 2x1 %.1f%%: within 2 points, keep 128 x 128 2x1\n", n, p, a, b }'
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
    echo "== 2. block scales at $blk"
    rows lib --scale block
    rows tiles --scale block --tile 128x128x128,256x128x128 --cluster 2x1,1x1,1x2
    rows wide --scale block --tile 128x160x128,128x176x128 --cluster 2x1
    rows staged --scale block --tile 256x128x128 --cluster 2x1,1x2 --scale-mul staged
    (export CUTEC_SASS_FFMA=nop && rows nop --scale block --tile 128x128x128,256x128x128 --cluster 2x1,1x2)
    rows tensor --scale tensor --tile 128x128x128,128x256x128 --cluster 2x1
    echo "== $(el) s: 3. torch's block-scaled _scaled_mm, $blk (bench/torch_scaled_mm.py)"
    device_late torch || timeout 14 python3 bench/torch_scaled_mm.py --block e4m3 bf16 $blk 2>&1 | tail -n 3
    echo "== $(el) s: the rule"
    decide
    echo "decides: nothing from the NOP rows (wrong by design) or the per-tensor rows (no block scales)"
    echo "== registers and spills (sm_90a): 256x128 1x2: $(fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
