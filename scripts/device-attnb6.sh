#!/bin/sh
# Engineer attnb6 (session 34): the Hopper attention backward at d128, the dK/dV kernel's P^T
# and dS^T through shared memory (stmatrix; dK and dV by wgmma SS), which frees the 32
# registers a thread that P and dS held, so that its steps overlap as the dQ kernel's do (the
# next step's scores in flight while this step's dK and dV products run; the default waits
# for each step's own products).  Opt-in: CUTEC_ATTN_BWD_KV=smem2 (two buffers of the tiles,
# the warpgroups in turns).  (The one-buffer forms smem and smem-free measured slower in both
# rows at the 19:25 mid pass of session 34 and were deleted: bench/RESULTS.md, attnb6.)
# Under ~80 s on one H200 after the lead's `make all tests` (BUDGET_S; a step that would pass
# it is skipped, saying so):
#   1. smem2 on the GPU against float64 FIRST (`cutec run --bwd`: every row of dQ, dK, dV),
#      GQA, causal and not (the benches check every row of theirs too);
#   2. d128 8x16x4096 bench (causal and not, every row checked): the old form
#      (CUTEC_ATTN_BWD_KV=serial, "the default" below, whatever KV_DEFAULT says) with SDPA's
#      backward beside (~35 s), then smem2 (SDPA not rerun);
#   3. with what is left, 2x16x16384: smem2, then serial.
# Decides (one line): smem2 0 wrong and at least 1% faster than the default in BOTH
#   8x16x4096 rows (non-causal and causal) -> "make default" (the flip: KV_DEFAULT in
#   src/kernels/attention/hopper_bwd.c, "serial" -> "smem2"); slower than the default in both
#   rows -> "delete"; any wrong, failed or missing (skipped) row -> "keep opt-in (look
#   first)"; otherwise "keep opt-in".
# Logs under $OUT (default build/device-out); the log's summary is printed.
. scripts/device-common.sh
log="$out/attnb6.log"
t0=$(date +%s)
budget=${BUDGET_S:-80}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
chk="--bwd --variant hopper --iters 1"
b4096="--bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
b16k="--bwd --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 10"
# the TFLOP/s of a bench log's d128 backward row, causal ($2 = 1) or not, seqlen $3
tops() { awk -v c="$2" -v s="S=$3" '/ D=128 / && / bwd / && $0 !~ /WRONG/ && index($0, s " ") {
    for (i = 1; i <= NF; i++) if ($i == "bwd") { if ((/ causal /) == (c == 1)) print $(i + 2) } }' "$1" 2>/dev/null | head -n 1; }
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    nvidia-smi -L >/dev/null 2>&1 || { echo "== no GPU: every step below skipped"; budget=0; }
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. the new forms on the GPU against float64"
    device_step 8 env CUTEC_ATTN_BWD_KV=smem2 build/cutec run attention $chk --batch 2 --heads 6 --kv-heads 3 --seqlen 1000 --headdim 128 --causal
    device_step 8 env CUTEC_ATTN_BWD_KV=smem2 build/cutec run attention $chk --batch 2 --heads 4 --kv-heads 2 --seqlen 1100 --headdim 128
    echo "== 2. d128 8x16x4096: the default (SDPA beside), smem2"
    device_step 45 env CUTEC_ATTN_BWD_KV=serial build/cutec bench attention $b4096 | tee "$out/attnb6-default.txt"
    device_step 26 env CUTEC_ATTN_BWD_KV=smem2 $nosdpa build/cutec bench attention $b4096 | tee "$out/attnb6-smem2.txt"
    echo "== 3. 2x16x16384 with what is left: smem2, then the default"
    device_step 20 env CUTEC_ATTN_BWD_KV=smem2 $nosdpa build/cutec bench attention $b16k | tee "$out/attnb6-smem16k.txt"
    device_step 20 env CUTEC_ATTN_BWD_KV=serial $nosdpa build/cutec bench attention $b16k | tee "$out/attnb6-default16k.txt"
    device_stamp "done; clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
echo "== summary (attnb6): default = CUTEC_ATTN_BWD_KV=serial (P, dS in registers, serial dK/dV steps); smem2 the new form"
grep -E "^== |^# NVIDIA|bwd|WRONG|FAIL|failed|verified" "$log" | cut -c1-170
if [ "$budget" = 0 ]; then
    echo "decides: nothing (no GPU): CUTEC_ATTN_BWD_KV=smem2 stays opt-in"
    exit 0
fi
d0=$(tops "$out/attnb6-default.txt" 0 4096) d1=$(tops "$out/attnb6-default.txt" 1 4096)
n0=$(tops "$out/attnb6-smem2.txt" 0 4096) n1=$(tops "$out/attnb6-smem2.txt" 1 4096)
bad=$(grep -A1 -E "CUTEC_ATTN_BWD_KV=smem2 " "$log" | grep -cE "WRONG|FAILED|failed")
echo "smem2: 8x16x4096 ${n0:-?} / causal ${n1:-?} TFLOP/s against the default's ${d0:-?} / ${d1:-?}"
if [ "$bad" != 0 ] || [ -z "$n0" ] || [ -z "$n1" ] || [ -z "$d0" ] || [ -z "$d1" ]; then
    echo "decides: keep CUTEC_ATTN_BWD_KV=smem2 opt-in (a wrong, failed or missing row: look first)"
elif [ "$(bench_atleast "$n0" "$d0" 1.01)" = 1 ] && [ "$(bench_atleast "$n1" "$d1" 1.01)" = 1 ]; then
    echo "decides: make default CUTEC_ATTN_BWD_KV=smem2 (hopper_bwd.c: KV_DEFAULT = \"smem2\")"
elif [ "$(bench_atleast "$n0" "$d0" 1.0)" = 0 ] && [ "$(bench_atleast "$n1" "$d1" 1.0)" = 0 ]; then
    echo "decides: delete CUTEC_ATTN_BWD_KV=smem2 (slower than the default in both rows)"
else
    echo "decides: keep CUTEC_ATTN_BWD_KV=smem2 opt-in (not 1% faster in both rows)"
fi
s0=$(tops "$out/attnb6-smem16k.txt" 0 16384) s1=$(tops "$out/attnb6-smem16k.txt" 1 16384)
e0=$(tops "$out/attnb6-default16k.txt" 0 16384) e1=$(tops "$out/attnb6-default16k.txt" 1 16384)
echo "2x16x16384 (informative): smem2 ${s0:-?} / causal ${s1:-?}, default ${e0:-?} / ${e1:-?}"
