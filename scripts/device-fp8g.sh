#!/bin/sh
# fp8 block scales: the promotion's FFMAs rewritten in the cubin (issue 15 item 5; engineer
# fp8g).  CUTEC_SASS_FFMA (runtime/ffma_rewrite.c, opt-in) rewrites each run of 16 or more
# FFMAs of a kernel with fp8 wgmmas after ptxas: "yield" (every FFMA of the run lets the
# scheduler switch warps; ptxas writes every other one so), "stall2" (two cycles between a
# warp's FFMAs, the other one left to the other warp and the tensor core), "nop" (the FFMAs
# issued as NOPs: a diagnostic, its results are wrong and its row says so).  About 75 s on one
# H200 after `make all tests` (the make below is then a no-op), no step starting past
# BUDGET_S (default 62 s; the last step ends by 80 s):
#   1. on the GPU against float64 first: `cutec run gemm` of block scales e4m3 -> bf16 at
#      1021x1016x1024 (edge tiles, every element checked) with yield and with stall2;
#   2. the library's call (128 x 128, 2x1 clusters) at 4096x7168x16384 as it is, cuBLASLt
#      (unscaled) beside it (torch's block-scaled _scaled_mm last, in its own process);
#   3. the same call with CUTEC_SASS_FFMA=yield, nop and stall2, each in a process of its own
#      (the rewrite is read at compile time), each with cuBLASLt in that process: the rows
#      are compared as fractions of that process's cuBLASLt ("of cuBLAS").
# Decides (the rule): a rewrite whose row is right and at least 2 points of cuBLAS above the
# default's becomes the block-scaled GEMM's default (the one-line flip: the default kind in
# ffma_rewrite_from_env, runtime/ffma_rewrite.c; it touches only kernels with QGMMA); within
# 2 points: no gain, deleted next session; more than 2 below: deleted.  nop decides nothing:
# default / nop is what the FFMAs cost (nop near the per-tensor kernel's ~1,400: the
# promotion's instructions are the gap; near the default: the FFMAs' issue is not).
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
bench_rewrite()
{
    m=$1
    device_late "bench $m" && echo "- -" >"$out/fp8g-$m.pct" && return
    echo "== $(el) s: CUTEC_SASS_FFMA=$m, $blk, the library's call, cuBLASLt (no torch)"
    CUTEC_SASS_FFMA=$m CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 18 --scale block --sizes $blk >"$out/fp8g-$m.txt" 2>&1
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
    elif [ "$pc" != ok ] || [ "$(cat "$out/fp8g-$m.run")" != yes ]; then
        echo "decides: $m gave wrong results (bench $pc, run $(cat "$out/fp8g-$m.run")): delete"
    else
        awk -v d="$d" -v p="$p" -v m="$m" 'BEGIN {
            if (p - d >= 2) printf "decides: %s %.1f%% of cuBLAS against the default %.1f%%: make it the default (ffma_rewrite_from_env)\n", m, p, d;
            else if (p - d > -2) printf "decides: %s %.1f%% against %.1f%%: no gain, keep opt-in until deleted\n", m, p, d;
            else printf "decides: %s %.1f%% against %.1f%%: slower, delete\n", m, p, d }'
    fi
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; budget=-1; fi
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== $(el) s: 1. yield and stall2 against float64 (every element, 1021x1016x1024)"
    for m in yield stall2; do
        echo no >"$out/fp8g-$m.run"
        device_late "run $m" && continue
        r=$(CUTEC_SASS_FFMA=$m timeout 12 build/cutec run gemm --dtype e4m3 --out-dtype bf16 --layout tn \
            --variant hopper --scale block --m 1021 --n 1016 --k 1024 2>&1 | tail -n 2 | tr '\n' ' ')
        echo "$m: $r"
        echo "$r" | grep -q "verified:" && echo yes >"$out/fp8g-$m.run"
    done
    echo "== $(el) s: 2. the default, $blk, the library's call, cuBLASLt"
    if device_late default; then
        echo "- -" >"$out/fp8g-default.pct"
    else
        CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 18 --scale block --sizes $blk >"$out/fp8g-default.txt" 2>&1
        quiet <"$out/fp8g-default.txt" | grep -v "^# *$"
        pct <"$out/fp8g-default.txt" >"$out/fp8g-default.pct"
    fi
    echo "== 3. the rewrites"
    for m in yield nop stall2; do bench_rewrite $m; done
    echo "== $(el) s: % of cuBLAS, check, TFLOP/s: default $(cat "$out"/fp8g-default.pct); yield" \
        "$(cat "$out"/fp8g-yield.pct); nop $(cat "$out"/fp8g-nop.pct); stall2 $(cat "$out"/fp8g-stall2.pct)"
    echo "== $(el) s: torch's block-scaled _scaled_mm, $blk (bench/torch_scaled_mm.py)"
    device_late torch || timeout 14 python3 bench/torch_scaled_mm.py --block e4m3 bf16 $blk 2>&1 | tail -n 3
    decide yield
    decide stall2
    echo "decides: nothing (nop is a diagnostic; its results are wrong by design)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
