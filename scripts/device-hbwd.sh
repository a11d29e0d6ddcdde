#!/bin/sh
# Engineer hbwd (session 33): the Hopper attention backward at head dim 96 (new: 64-byte
# swizzled tiles, three TMA boxes a row, wgmma N 96, d128's serial dK/dV steps; ptxas: no
# spills) on an sm_90 GPU, under ~75 s after the lead's `make all tests` (BUDGET_S; a step
# that would pass it is skipped, saying so; output line-buffered):
#   1. the Hopper backward at d96 on the GPU against float64 FIRST (`cutec run`: every row
#      of dQ, dK, dV up to 256 each), odd S, GQA, causal and not, bf16 and f16;
#   2. 8x16x4096 d96 backward: --variant hopper (SDPA's backward beside, same process), then
#      --variant sm80 (what AUTO runs at d96 now; SDPA not rerun), non-causal and causal rows.
# Decides (one line): Hopper faster than SM80 by 3% or more in BOTH rows, 0 wrong ->
#   "make default": made in session 32 (AUTO takes the Hopper backward at 96: attention_internal.h's
#   attn_hopper_bwd_head_dim); a loss now means taking 96 out of it;
# any WRONG/failed Hopper row -> "keep opt-in (broken: look first)"; otherwise "keep
#   opt-in" (--variant hopper / CUTE_ATTENTION_HOPPER; AUTO stays SM80 at d96).
# Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/hbwd.log"
t0=$(date +%s)
budget=${BUDGET_S:-75}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
d96="--bwd --batch 8 --heads 16 --seqlen 4096 --headdim 96 --iters 10"
chk="--bwd --variant hopper --headdim 96 --iters 1"
# the ms of a bench log's d96 backward row of variant $2, causal ($3 = 1) or not
row_ms() { awk -v v="$2" -v c="$3" '/ D=96 / && / bwd / && $0 !~ /WRONG/ {
    for (i = 1; i <= NF; i++) if ($i == "bwd" && $(i + 1) == v) { if ((/ causal /) == (c == 1)) print $(i + 2) } }' "$1"; }
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. the Hopper backward at d96 on the GPU against float64"
    device_step 8 build/cutec run attention $chk --batch 2 --heads 6 --kv-heads 3 --seqlen 999
    device_step 8 build/cutec run attention $chk --batch 2 --heads 6 --kv-heads 3 --seqlen 999 --causal
    device_step 8 build/cutec run attention $chk --batch 1 --heads 4 --kv-heads 1 --seqlen 1337 --causal --dtype f16
    echo "== 2. 8x16x4096 d96 backward: hopper (SDPA beside), then sm80 (AUTO's today)"
    device_step 28 build/cutec bench attention $d96 --variant hopper | tee "$out/hbwd-hopper.txt"
    device_step 20 env $nosdpa build/cutec bench attention $d96 --variant sm80 | tee "$out/hbwd-sm80.txt"
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 40 "$log"
if [ "$budget" = 0 ]; then
    echo "decides: nothing (no GPU): AUTO stays SM80 at d96, the Hopper backward opt-in"
    exit 0
fi
wrong=$(grep -cE "WRONG|FAILED|failed" "$log")
h0=$(row_ms "$out/hbwd-hopper.txt" hopper 0) h1=$(row_ms "$out/hbwd-hopper.txt" hopper 1)
s0=$(row_ms "$out/hbwd-sm80.txt" sm80 0) s1=$(row_ms "$out/hbwd-sm80.txt" sm80 1)
echo "d96 8x16x4096 backward ms: hopper ${h0:-?} / causal ${h1:-?}; sm80 ${s0:-?} / causal ${s1:-?}; wrong/failed lines: $wrong"
if [ "$wrong" != 0 ] || [ -z "$h0" ] || [ -z "$h1" ]; then
    echo "decides: keep opt-in (broken: the Hopper d96 backward failed or was wrong; AUTO stays SM80 at d96)"
elif [ -n "$s0" ] && [ -n "$s1" ] && awk -v a="$h0" -v b="$s0" -v c="$h1" -v d="$s1" \
    'BEGIN { exit !(a <= 0.97 * b && c <= 0.97 * d) }'; then
    echo "decides: make default (AUTO's d96 backward is Hopper's: attn_hopper_bwd_head_dim)"
else
    echo "decides: keep opt-in (Hopper not 3% faster than SM80 in both rows; AUTO stays SM80 at d96)"
fi
