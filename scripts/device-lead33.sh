#!/bin/sh
# The lead's work of session 33 for a GPU pass: the Hopper forward at head dims 160 and 224
# (64-byte swizzled atoms, five and seven 32-column TMA boxes a row; before, AUTO gave them to
# the SM80 kernel: d160 4x16x4096 279.4 TFLOP/s, 48% of SDPA) checked on the GPU against
# float64, then timed beside SDPA and the SM80 kernel; the key tile at 160 (128 or 144) and
# 224 (96 or 80); the d96 backward on Hopper, causal (untimed so far).  Predicted: d160 near
# d128/d192's rates (~650-700), d224 near d256's (~690).
# Decides: the key tile whose non-causal rate is higher by 1% or more at 160 (hopper_plan.c's
# `wide`; 128 kept otherwise) and 224 (96 kept otherwise); AUTO keeps the Hopper forward at 160
# and 224 only if it beats the SM80 kernel (attn_hopper_head_dim in attention_internal.h).
# Under 120 s on an H200 after `make all tests`; log $OUT/lead33.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead33: skipped: no GPU here"; exit 0; }
log="$out/lead33.log"
start=$(date +%s)
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    echo "== checked runs (Hopper forward at 160 and 224; d96 backward causal) $(el_s)"
    for a in "--headdim 160 --seqlen 1500 --heads 8 --kv-heads 2" "--headdim 160 --seqlen 1000 --causal --dtype f16" \
             "--headdim 160 --seqlen 777 --block-n 144" "--headdim 224 --seqlen 1100 --heads 4" \
             "--headdim 224 --seqlen 901 --causal" "--headdim 224 --seqlen 640 --block-n 80 --dtype f16" \
             "--headdim 96 --bwd --seqlen 900 --causal --heads 4 --kv-heads 2"; do
        timeout 30 build/cutec run attention --batch 2 $a --iters 3 2>&1 | tail -n 1
    done
    echo "== d160 4x16x4096: Hopper 128 keys (SDPA beside), 144 keys, SM80 $(el_s)"
    timeout 25 stdbuf -oL -eL build/cutec bench attention --batch 4 --heads 16 --seqlen 4096 --headdim 160 --iters 10 2>&1
    timeout 20 stdbuf -oL -eL build/cutec bench attention --batch 4 --heads 16 --seqlen 4096 --headdim 160 --block-n 144 --iters 10 2>&1
    timeout 20 stdbuf -oL -eL build/cutec bench attention --batch 4 --heads 16 --seqlen 4096 --headdim 160 --variant sm80 --iters 5 2>&1
    echo "== d224 4x16x4096: Hopper 96 keys (SDPA beside), 80 keys $(el_s)"
    timeout 25 stdbuf -oL -eL build/cutec bench attention --batch 4 --heads 16 --seqlen 4096 --headdim 224 --iters 10 2>&1
    timeout 20 stdbuf -oL -eL build/cutec bench attention --batch 4 --heads 16 --seqlen 4096 --headdim 224 --block-n 80 --iters 10 2>&1
    echo "== d96 backward causal 8x16x4096 (Hopper) $(el_s)"
    timeout 25 stdbuf -oL -eL build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 96 --iters 5 2>&1
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
