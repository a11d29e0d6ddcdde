#!/bin/sh
# fp8 block scales (issue 15 item 5; engineer fp8g): the promotion's FFMAs rewritten in the
# cubin after ptxas (runtime/ffma_rewrite.c; kernels with QGMMA, runs of 16+ FFMAs), timed
# against the default (the library's call: 128 x 128, two partial sets, 2x1 clusters) at
# 4096x7168x16384:
#   reuse  CUTEC_SASS_FFMA=reuse: no FFMA of a run yields and each keeps its scale register
#          in the reuse cache for the next (ptxas: every other one yields, without reuse);
#          a fifth fewer register reads a run, bank-conflicted FFMAs 71 -> 15 of 320;
#   nop    CUTEC_SASS_FFMA=nop: the FFMAs issued as NOPs -- a diagnostic, its results are
#          wrong and its row says so (the mid pass: 1,308 against the default's 1,160).
# The mid pass (16:56 UTC) measured and removed: the one-set loop at 128 x 128 (988.4),
# every FFMA yielding (1,111.7), two cycles between FFMAs (1,096.3) against 1,159.6.
# About 30 s on one H200 after `make all tests` (the make below is then a no-op), no step
# starting past BUDGET_S (default 62 s), each under a timeout:
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024, C row-major (edge tiles, every element checked) with reuse;
#   2. the default, reuse, nop, the default again, each in a process of its own (the
#      variable is read at compile time) with cuBLASLt (unscaled) in that process: rows
#      compared as fractions of that process's cuBLASLt ("of cuBLAS"), each row's 256
#      samples checked against float64 before it is timed;
#   3. torch's block-scaled _scaled_mm at that shape (bench/torch_scaled_mm.py).
# Decides (the rule): reuse, if right and at least 1 point of cuBLAS above both default
# rows, becomes the default (the one-line flip: `!v ? FFMA_KEEP` to `!v ? FFMA_REUSE` in
# ffma_rewrite_from_env, runtime/ffma_rewrite.c); within: keep opt-in; more than 1 point
# below both: delete.  nop decides nothing.
#   ITERS=10 sh scripts/device-fp8g.sh          log: $OUT/fp8g.log (default build/device-out)
. scripts/device-common.sh
log="$out/fp8g.log"
start=$(date +%s)
budget=${BUDGET_S:-62}
blk=4096x7168x16384
# "of cuBLAS" of the hopper row, its check and TFLOP/s, from a bench's rows: "76.7 ok 1097.00"
# (or "- -")
pct() {
    awk '$2 ~ /^hopper/ { p = $5; sub("%", "", p); c = ($0 ~ / ok/) ? "ok" : "wrong"; t = $4 }
         END { print (p ? p : "-"), (c ? c : "-"), t }'
}
# form NAME VAR=VALUE: the library's call with VAR=VALUE (default: none), its rows and pct
form()
{
    m=$1 v=$2
    device_late "bench $m" && echo "- -" >"$out/fp8g-$m.pct" && return
    echo "== $(el) s: $m ($v), $blk, the library's call, cuBLASLt"
    # shellcheck disable=SC2163 # (v is NAME=VALUE)
    (export "$v" CUTEC_TORCH_SCALED_MM=/dev/null && fp8_bench 18 --scale block --sizes $blk) >"$out/fp8g-$m.txt" 2>&1
    grep -v "^#" "$out/fp8g-$m.txt"
    pct <"$out/fp8g-$m.txt" >"$out/fp8g-$m.pct"
}
decide()
{
    read -r d1 _ <"$out/fp8g-default.pct"
    read -r d2 _ <"$out/fp8g-default2.pct"
    read -r p pc _ <"$out/fp8g-reuse.pct"
    if [ "$p" = "-" ] || [ "$d1" = "-" ] || [ "$d2" = "-" ]; then
        echo "decides: reuse not measured (default $d1 / $d2, reuse $p of cuBLAS): keep opt-in, measure again"
    elif [ "$pc" != ok ] || [ "$(cat "$out/fp8g-reuse.run")" != yes ]; then
        echo "decides: reuse gave wrong results (bench $pc, run $(cat "$out/fp8g-reuse.run")): delete"
    else
        awk -v a="$d1" -v b="$d2" -v p="$p" 'BEGIN { hi = a > b ? a : b; lo = a < b ? a : b;
            if (p >= hi + 1) printf "decides: reuse %.1f%% of cuBLAS against the default %.1f / %.1f%%: make it the default (ffma_rewrite_from_env: !v ? FFMA_REUSE)\n", p, a, b;
            else if (p > lo - 1) printf "decides: reuse %.1f%% against %.1f / %.1f%%: within a point, keep opt-in\n", p, a, b;
            else printf "decides: reuse %.1f%% against %.1f / %.1f%%: slower, delete\n", p, a, b }'
    fi
}
{
    gemm_gpu_head
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== $(el) s: 1. reuse against float64 (every element, 1021x1016x1024, C row-major)"
    echo no >"$out/fp8g-reuse.run"
    if ! device_late "run reuse"; then
        r=$(export CUTEC_SASS_FFMA=reuse && fp8_block_run)
        echo "reuse: $r"
        echo "$r" | grep -q "verified:" && echo yes >"$out/fp8g-reuse.run"
    fi
    echo "== 2. the default, reuse, nop, the default again"
    form default CUTEC_FP8G=default
    form reuse CUTEC_SASS_FFMA=reuse
    form nop CUTEC_SASS_FFMA=nop
    form default2 CUTEC_FP8G=default
    echo "== $(el) s: % of cuBLAS, check, TFLOP/s: default $(cat "$out"/fp8g-default.pct); reuse" \
        "$(cat "$out"/fp8g-reuse.pct); nop $(cat "$out"/fp8g-nop.pct); default $(cat "$out"/fp8g-default2.pct)"
    echo "== $(el) s: 3. torch's block-scaled _scaled_mm, $blk (bench/torch_scaled_mm.py)"
    device_late torch || timeout 14 python3 bench/torch_scaled_mm.py --block e4m3 bf16 $blk 2>&1 | tail -n 3
    decide
    echo "decides: nothing (nop is a diagnostic; its results are wrong by design)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
