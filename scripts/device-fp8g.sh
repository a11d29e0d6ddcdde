#!/bin/sh
# fp8 block scales (issue 15 item 5; engineer fp8g): two forms of the promotion, opt-in, timed
# against the default (the library's call: 128 x 128 tiles, two partial sets taking turns,
# 2x1 clusters) at 4096x7168x16384, and a diagnostic:
#   waves   CUTEC_GEMM_BLOCKSCALE_LOOP=waves: 128 x 128 in the one-partial-set loop, each
#           batch waited for and promoted while the other warpgroup's runs (DeepGEMM's and
#           CUTLASS's loop; 64 registers fewer);
#   yield   CUTEC_SASS_FFMA=yield (runtime/ffma_rewrite.c, after ptxas, kernels with QGMMA,
#           runs of 16+ FFMAs): every promotion FFMA lets the scheduler switch warps (ptxas
#           already writes every other one so: DeepGEMM's README's 10%+ rewrite);
#   stall2  CUTEC_SASS_FFMA=stall2: two cycles between a warp's FFMAs, the other cycle left
#           to the other warp and the tensor core;
#   nop     CUTEC_SASS_FFMA=nop: the FFMAs issued as NOPs -- a diagnostic, its results are
#           wrong and its row says so: default / nop is what the FFMAs cost (near the
#           per-tensor kernel's ~1,400: they are the gap; near the default: they are not).
# About 78 s on one H200 after `make all tests` (the make below is then a no-op), no step
# starting past BUDGET_S (default 62 s), each under a timeout:
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024, C row-major (edge tiles, every element checked) with waves and with yield;
#   2. the default, then waves, nop, yield, stall2 (the last to be cut), each in a process of its own (both
#      variables are read at compile time) with cuBLASLt (unscaled) in that process: rows
#      compared as fractions of that process's cuBLASLt ("of cuBLAS"), each row's 256
#      samples checked against float64 before it is timed;
#   3. torch's block-scaled _scaled_mm at that shape (bench/torch_scaled_mm.py), if time is left.
# Decides (the rule): a form whose rows are right and at least 2 points of cuBLAS above the
# default's becomes the default (one-line flips: waves, `v && !strcmp(v, "waves")` in
# gemm_blockscale_one_set, hopper_blockscale.c, to `!v || strcmp(v, "pairs")`; yield or
# stall2, the FFMA_KEEP returned for an unset variable in ffma_rewrite_from_env,
# runtime/ffma_rewrite.c); within 2 points: no gain, deleted next session; more than 2 below:
# deleted.  nop decides nothing.
#   ITERS=10 sh scripts/device-fp8g.sh          log: $OUT/fp8g.log (default build/device-out)
. scripts/device-common.sh
log="$out/fp8g.log"
start=$(date +%s)
budget=${BUDGET_S:-62}
blk=4096x7168x16384
quiet() { grep -v "^# \(check\|time\|index\|  (allowed\|cuBLAS:\|e4m3 ->\|each variant\|NVIDIA\)"; }
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
    quiet <"$out/fp8g-$m.txt" | grep -v "^#"
    pct <"$out/fp8g-$m.txt" >"$out/fp8g-$m.pct"
}
el() { echo $(($(date +%s) - start)); }
decide()
{
    m=$1
    read -r d _ <"$out/fp8g-default.pct"
    read -r p pc _ <"$out/fp8g-$m.pct"
    if [ "$p" = "-" ] || [ "$d" = "-" ]; then
        echo "decides: $m not measured (default $d, $m $p of cuBLAS): keep opt-in, measure again"
    elif [ "$pc" != ok ] || [ "$(cat "$out/fp8g-$m.run")" = no ]; then
        echo "decides: $m gave wrong results (bench $pc, run $(cat "$out/fp8g-$m.run")): delete"
    else
        awk -v d="$d" -v p="$p" -v m="$m" 'BEGIN {
            if (p - d >= 2) printf "decides: %s %.1f%% of cuBLAS against the default %.1f%%: make it the default (the one-line flip named in the header of scripts/device-fp8g.sh)\n", m, p, d;
            else if (p - d > -2) printf "decides: %s %.1f%% against %.1f%%: no gain, keep opt-in until deleted\n", m, p, d;
            else printf "decides: %s %.1f%% against %.1f%%: slower, delete\n", m, p, d }'
    fi
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; budget=-1; fi
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== $(el) s: 1. waves and yield against float64 (every element, 1021x1016x1024)"
    echo "- (its bench's samples only)" >"$out/fp8g-stall2.run"
    for f in waves:CUTEC_GEMM_BLOCKSCALE_LOOP=waves yield:CUTEC_SASS_FFMA=yield; do
        m=${f%%:*}
        echo no >"$out/fp8g-$m.run"
        device_late "run $m" && continue
        r=$(env "${f#*:}" timeout 12 stdbuf -oL build/cutec run gemm --dtype e4m3 --out-dtype bf16 --layout tnt \
            --variant hopper --scale block --m 1021 --n 1016 --k 1024 2>&1 | tail -n 2 | tr '\n' ' ')
        echo "$m: $r"
        echo "$r" | grep -q "verified:" && echo yes >"$out/fp8g-$m.run"
    done
    echo "== 2. the default and the forms"
    form default CUTEC_FP8G=default
    form waves CUTEC_GEMM_BLOCKSCALE_LOOP=waves
    form nop CUTEC_SASS_FFMA=nop
    form yield CUTEC_SASS_FFMA=yield
    form stall2 CUTEC_SASS_FFMA=stall2
    echo "== $(el) s: % of cuBLAS, check, TFLOP/s: default $(cat "$out"/fp8g-default.pct); waves" \
        "$(cat "$out"/fp8g-waves.pct); nop $(cat "$out"/fp8g-nop.pct); yield $(cat "$out"/fp8g-yield.pct);" \
        "stall2 $(cat "$out"/fp8g-stall2.pct)"
    echo "== $(el) s: 3. torch's block-scaled _scaled_mm, $blk (bench/torch_scaled_mm.py)"
    device_late torch || timeout 14 python3 bench/torch_scaled_mm.py --block e4m3 bf16 $blk 2>&1 | tail -n 3
    decide waves
    decide yield
    decide stall2
    echo "decides: nothing (nop is a diagnostic; its results are wrong by design)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
