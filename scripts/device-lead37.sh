#!/bin/sh
# The lead's pass of session 37 (about 120-150 s on one H200 after `make all tests`; log
# $OUT/lead37.log):
#  1. the Hopper attention backward at d128 causal, the fused deterministic form beside the two
#     kernels (the default where causal), each checked against float64 (session 37's first pass
#     timed only the non-causal rows: fused 498.1 / two 479.2 at 8x16x4096);
#  2. the Hopper bf16 GEMM at issue 15's shapes with C under beta by TMA the only form now
#     (dec-hgemm): 2048^3, 4096^3, 8192^3, 8192x8192x1024 and the LLM shapes, cuBLAS in the same
#     process, beta 0 and 0.5; then `cutec bench mma` (the wgmma ceiling the issue counts in).
# Decides: "decides: fused where causal" when the fused form is ahead at both causal shapes by
# 1% or more (the flip: attn_bwd_form_default in attention_bwd.h), else the two kernels stay.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead37: skipped: no GPU here"; exit 0; }
log="$out/lead37.log"
start=$(date +%s) budget=${BUDGET_S:-150} iters=20
tops() { grep -oE '[0-9.]+ TFLOP/s' "$1" | tail -n 1 | cut -d' ' -f1; }
{
    device_head
    echo "== 1. the backward, d128 causal: two kernels, fused $(el_s)"
    for shape in "--batch 8 --heads 16 --seqlen 4096" "--batch 2 --heads 16 --seqlen 16384"; do
        for form in two fused; do
            device_late "$form $shape" && continue
            f="$out/bwd-$form-$(echo "$shape" | tr -dc 0-9).txt"
            # shellcheck disable=SC2086
            CUTEC_ATTN_BWD_FORM=$form timeout 40 build/cutec run attention --bwd --causal $shape --headdim 128 --iters 10 >"$f" 2>&1
            echo "$form $shape: $(tail -n 1 "$f")"
        done
    done
    echo "== 2. the Hopper GEMM at issue 15's shapes, beta 0 then 0.5 $(el_s)"
    device_bench_bf16 70 2048,4096,8192,8192x8192x1024,8192x28672x4096,8192x4096x14336,8192x6144x4096
    device_bench_bf16 30 4096,8192 --beta 0.5
    device_late "bench mma" || timeout 20 build/cutec bench mma --dtypes bf16,wgmma 2>&1 | tail -n 4
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
a=$(tops "$out/bwd-two-8164096.txt") b=$(tops "$out/bwd-fused-8164096.txt")
c=$(tops "$out/bwd-two-21616384.txt") d=$(tops "$out/bwd-fused-21616384.txt")
wrong=$(grep -L "verified against float64" "$out"/bwd-*.txt 2>/dev/null | wc -l)
echo "causal bwd TFLOP/s two / fused: 8x16x4096 $a / $b, 2x16x16384 $c / $d (files not verified: $wrong)"
if [ "$wrong" = 0 ] && at_least "$(ratio "$b" "$a")" 1.01 && at_least "$(ratio "$d" "$c")" 1.01; then
    echo "decides: fused where causal too: attn_bwd_form_default in attention_bwd.h"
else
    echo "decides: the two kernels stay the default where causal"
fi
