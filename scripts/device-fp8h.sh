#!/bin/sh
# fp8 block scales at 4096x7168x16384 (issue 15 item 5; engineer fp8h): the tiles the count
# names (docs/gemm.md "The count at 4096 x 7168"), each timed beside the library's tile
# (128 x 128, two partial sets, 2x1) in one process with cuBLASLt (unscaled):
#   256 x 128  DeepGEMM's pick at this shape (its cost model): 896 tiles, 6.8 waves on 132 SMs
#              (97%, as 128 x 128's 13.6), A and B loaded a flop 0.75 times 128 x 128's;
#              one partial set (the waves loop), in 1x1, 2x1 (B multicast) and 1x2 (A's
#              32 KB multicast, A being the larger operand of this tile);
#   128 x 160  1,440 tiles, 10.9 waves (98.7%), one partial set (128 x 176, 69.7% of cuBLAS
#              in the early mid pass, is no longer timed);
#   256 x 128 staged (--scale-mul staged: the scales by cp.async three k-tiles ahead), 1x2;
#   shared rows (the default for 256-row tiles since the mid pass; CUTEC_GEMM_BLOCKSCALE_ROWS
#              =own / =shfl ask for each form): a warp loads its rows' scales once, lane L
#              the warp's row L % 16 of wave L / 16, and shuffles them to the threads holding
#              those rows: one load of sa a k-tile for four and one live pointer. With a
#              pointer a row ptxas issues kt + 1's loads after kt's last batch (their
#              addresses need registers the batch holds) and the next k-tile's first product
#              waits for them before its first wgmma (SASS, sm_90a). Mid passes (18:50 /
#              19:25): 256 x 128 1x2 80.5 / 81.0% of cuBLAS against 77.9 / 78.2, 2x1 79.7 /
#              80.1 against 76.8 / 77.8; tiles of one wave lost (128 x 160 75.2 against 78.8,
#              128 x 128's two sets 71.5 against 81.2) and keep their rows.
# and two readings that decide nothing: the FFMAs issued as NOPs (CUTEC_SASS_FFMA=nop, results
# wrong by design) at 128 x 128 and 256 x 128 with shared rows, what the promotion costs in each
# loop; the per-tensor kernel at 128 x 128 and 128 x 256 (no promotion: a tile's ceiling).
# About 60 s on one H200 after `make all tests`, no step starting past BUDGET_S (default 64 s):
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024, C row-major, every element checked, for each form the rules may pick;
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
#   shared rows: 256 x 128 with them against without, in 2x1 and in 1x2, checked right: the
#      default stays unless more than a point of cuBLAS behind in both, then each thread its
#      own rows again (`by_default = false` in shared_rows(), hopper_blockscale.c).
#   NOP and per-tensor rows decide nothing.
#   ITERS=10 sh scripts/device-fp8h.sh          log: $OUT/fp8h.log (default build/device-out)
. scripts/device-common.sh
log="$out/fp8h.log"
start=$(date +%s)
budget=${BUDGET_S:-64}
blk=4096x7168x16384
# rows NAME ARGS...: a bench of block scales at $blk with ARGS (no torch), its table in
# $out/fp8h-NAME.txt, shown without its notes
rows()
{
    n=$1
    shift
    device_late "bench $n" && : >"$out/fp8h-$n.txt" && return
    echo "== $(el) s: $n: $*"
    CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 16 --sizes $blk "$@" >"$out/fp8h-$n.txt" 2>&1
    grep -v "^#" "$out/fp8h-$n.txt"
}
# check TILE CLUSTER [MUL]: every element of a 1021x1016x1024 product against float64 on the
# GPU (MUL: a --scale-mul); its name in fp8h-verified ends in $tag (shared rows: +shfl)
check()
{
    device_late "run $*" && return
    # shellcheck disable=SC2086
    r=$(fp8_block_run --tile "$1" --cluster "$2" ${3:+--scale-mul $3})
    echo "$*${tag:-}: $r"
    echo "$r" | grep -q "verified:" && echo "hopper$2-t$1${3:+-mul$3}${tag:-}" >>"$out/fp8h-verified"
}
# ok_rows FILE [TAG [TILE CLUSTER]]: "NAME TFLOP/s %-of-cuBLAS" for each hopper row of a bench
# checked ok, named as the sweeps name them (hopper2x1-t256x128x128-mulstaged) with TAG; a
# bench given one --tile or one --cluster names neither: TILE and CLUSTER put them in
ok_rows()
{
    awk -v tag="${2:-}" -v tile="${3:-}" -v cl="${4:-}" '$2 ~ /^hopper/ && / ok/ { p = $5; sub("%", "", p);
        n = $2; sub("[+]blk", "", n); i = index(n, "-"); b = i ? substr(n, 1, i - 1) : n; r = i ? substr(n, i) : "";
        if (cl != "" && b == "hopper") b = b cl; if (tile != "" && r !~ /^-t[0-9]/) r = "-t" tile r;
        print b r tag, $4, p }' "$1" 2>/dev/null
}
decide()
{
    lib=$(ok_rows "$out/fp8h-lib.txt" | awk '{ print $3; exit }')
    base=$(ok_rows "$out/fp8h-tiles.txt" | awk '$1 ~ /^hopper2x1-t128x128x128/ { print $3; exit }')
    best=$({ ok_rows "$out/fp8h-tiles.txt"; ok_rows "$out/fp8h-wide.txt" "" 128x160x128 2x1
        ok_rows "$out/fp8h-staged.txt" "" 256x128x128 1x2; ok_rows "$out/fp8h-shfl.txt" +shfl; } |
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
    # shared rows: 256 x 128 with them against without, cluster by cluster
    for cl in 2x1 1x2; do
        own=$(ok_rows "$out/fp8h-tiles.txt" | awk -v n="hopper$cl-t256x128x128" '$1 == n { print $3 }')
        sh=$(ok_rows "$out/fp8h-shfl.txt" +shfl | awk -v n="hopper$cl-t256x128x128+shfl" '$1 == n { print $3 }')
        grep -qx "hopper$cl-t256x128x128+shfl" "$out/fp8h-verified" 2>/dev/null || sh=
        echo "${own:--} ${sh:--}"
    done | awk '{ n++; if ($1 == "-" || $2 == "-") bad = 1; d = $2 - $1; lo = (n == 1 || d < lo) ? d : lo;
                  hi = (n == 1 || d > hi) ? d : hi; r = r sprintf(" %s -> %s", $1, $2) }
        END { if (bad) printf "decides: shared rows not measured or not checked right (%s): the default stays, measure again\n", r;
              else if (hi < -1) printf "decides: shared rows at 256x128 (%s %% of cuBLAS): behind, each thread its own rows again (shared_rows: by_default = false)\n", r;
              else printf "decides: shared rows at 256x128 2x1 / 1x2 (%s %% of cuBLAS): the default stays\n", r }'
}
{
    gemm_gpu_head
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    : >"$out/fp8h-verified"
    # (each thread its own rows' scales unless a step says shfl: the rule compares the two
    # whichever is the default; the library's call takes the default)
    CUTEC_GEMM_BLOCKSCALE_ROWS=own && export CUTEC_GEMM_BLOCKSCALE_ROWS
    echo "== $(el) s: 1. the new tiles against float64 (every element, 1021x1016x1024, C row-major)"
    check 256x128x128 1x1
    check 256x128x128 2x1
    check 256x128x128 1x2
    check 128x160x128 2x1
    check 256x128x128 1x2 staged
    (
        export CUTEC_GEMM_BLOCKSCALE_ROWS=shfl tag=+shfl
        check 256x128x128 1x1
        check 256x128x128 2x1
        check 256x128x128 1x2
    )
    echo "== 2. block scales at $blk"
    (unset CUTEC_GEMM_BLOCKSCALE_ROWS && rows lib --scale block)
    rows tiles --scale block --tile 128x128x128,256x128x128 --cluster 2x1,1x1,1x2
    (
        export CUTEC_GEMM_BLOCKSCALE_ROWS=shfl
        rows shfl --scale block --tile 256x128x128 --cluster 2x1,1x1,1x2
    )
    rows wide --scale block --tile 128x160x128 --cluster 2x1
    rows staged --scale block --tile 256x128x128 --cluster 1x2 --scale-mul staged
    echo "== $(el) s: torch's block-scaled _scaled_mm, $blk (bench/torch_scaled_mm.py)"
    device_late torch || timeout 14 python3 bench/torch_scaled_mm.py --block e4m3 bf16 $blk 2>&1 | tail -n 3
    # (a bench stops at its first wrong row: one NOP row a process)
    (
        export CUTEC_SASS_FFMA=nop
        rows nop128 --scale block --tile 128x128x128 --cluster 2x1
        CUTEC_GEMM_BLOCKSCALE_ROWS=shfl && export CUTEC_GEMM_BLOCKSCALE_ROWS
        rows nop256 --scale block --tile 256x128x128 --cluster 1x2
    )
    rows tensor --scale tensor --tile 128x128x128,128x256x128 --cluster 2x1
    echo "== $(el) s: the rules"
    decide
    echo "decides: nothing from the NOP rows (wrong by design) or the per-tensor rows (no block scales)"
    echo "== registers and spills (sm_90a): 256x128 1x2: $(fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    echo "shared rows: $(export CUTEC_GEMM_BLOCKSCALE_ROWS=shfl && fp8_usage --scale block --tile 256x128x128 --cluster 1x2)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
