#!/bin/sh
# The lead's work of session 32 for a GPU pass: attention head dims past 64, 128 and 256 (the
# Hopper forward at 96 and 192; 32, 160, 224 forward and 32, 96 backward on the SM80 kernels)
# on the GPU against float64, the varlen test (causal over sequences of unequal tile counts:
# the fix), then their speed beside SDPA: d96 8x16x4096 and d192 4x16x4096 on the Hopper
# forward (predicted near d128's rate, 600-660 TFLOP/s: the same tiles' MMA share, 96 with
# 64-byte swizzled rows), d160 on SM80 (~330), d96 backward on SM80 (~250, SDPA ~450).  Under
# 120 s on an H200 after `make all tests`; log $OUT/lead32.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead32: skipped: no GPU here"; exit 0; }
log="$out/lead32.log"
start=$(date +%s)
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    echo "== the varlen test on the GPU $(el_s)"
    timeout 40 build/tests/kernels/attention/attention_varlen_test 2>&1 | tail -n 3
    echo "== checked runs $(el_s)"
    for a in "--headdim 96 --seqlen 1500 --heads 8 --kv-heads 2" "--headdim 96 --seqlen 1000 --causal --dtype f16" \
             "--headdim 192 --seqlen 1100 --heads 4" "--headdim 192 --seqlen 777 --causal" "--headdim 32 --seqlen 2000" \
             "--headdim 160 --seqlen 900 --causal" "--headdim 224 --seqlen 700" \
             "--headdim 96 --bwd --seqlen 700 --heads 4 --kv-heads 2" "--headdim 32 --bwd --seqlen 600 --causal" \
             "--headdim 96 --variant hopper --seqlen 1300 --causal --heads 4 --kv-heads 1" \
             "--headdim 192 --variant hopper --seqlen 1000 --dtype f16" \
             "--headdim 192 --decode --seqlen 5000 --heads 8 --kv-heads 2" "--headdim 96 --decode --seqlen 3000"; do
        timeout 30 build/cutec run attention --batch 2 $a --iters 3 2>&1 | tail -n 1
    done
    echo "== bench d96 8x16x4096, d192 4x16x4096 (Hopper), d160 (SM80), d96 backward (SM80); SDPA beside $(el_s)"
    timeout 30 stdbuf -oL -eL build/cutec bench attention --batch 8 --heads 16 --seqlen 4096 --headdim 96 --iters 10 2>&1
    timeout 30 stdbuf -oL -eL build/cutec bench attention --batch 4 --heads 16 --seqlen 4096 --headdim 192 --iters 10 2>&1
    timeout 25 stdbuf -oL -eL build/cutec bench attention --batch 4 --heads 16 --seqlen 4096 --headdim 160 --iters 5 2>&1
    timeout 25 stdbuf -oL -eL build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 96 --iters 5 2>&1
    echo "== d256 2x16x16384 (issue 18 asks 700 non-causal) $(el_s)"
    timeout 25 stdbuf -oL -eL build/cutec bench attention --batch 2 --heads 16 --seqlen 16384 --headdim 256 --iters 3 2>&1
    echo "== ptxas (sm_90a) $(el_s)"
    for d in 96 160 192 224; do
        echo "d$d: $(build/cutec compile attention --headdim $d --arch sm_90a --emit usage 2>&1 | grep -E 'spill|Used' | tr -s ' ' | tr '\n' ' ')"
    done  # (AUTO: Hopper at 96 and 192, SM80 at 160 and 224)
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
