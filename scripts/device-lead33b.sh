#!/bin/sh
# The lead's sweeps of session 33 over knobs that exist (no new code): issue 18's d64 forward
# (16x32x2048: 490.8 TFLOP/s, asks 500) over key tiles and the persistent grid, d256 at
# 2x16x16384 (697.0, asks 700) over key tiles, and issue 17's bf16 GEMV (ring of 4: 89.5-93.2%
# of the copy at 16384x4096 / 8192x8192, asks 95%) over the ring's depth.  Every attention row
# is checked against float64 by the bench itself; the GEMV forms first by `cutec run gemv`.
# Decides: a knob setting 1.5% or more faster than the default in its row (non-causal for
# attention; both GEMV shapes) is named for the plan's table (hopper_plan.c's `wide`/`narrow`,
# gemv's stage count); otherwise "keep".  About 120 s on an H200; log $OUT/lead33b.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead33b: skipped: no GPU here"; exit 0; }
log="$out/lead33b.log"
start=$(date +%s)
att() { timeout 25 stdbuf -oL -eL build/cutec bench attention "$@" --iters 10 2>&1 | grep -E "^(bf16|f16)|of SDPA"; }
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    echo "== d64 16x32x2048: default, 112 keys, a block a tile $(el_s)"
    att --batch 16 --heads 32 --seqlen 2048 --headdim 64
    att --batch 16 --heads 32 --seqlen 2048 --headdim 64 --block-n 112
    att --batch 16 --heads 32 --seqlen 2048 --headdim 64 --persistent 0
    echo "== d256 2x16x16384: default (80 keys; 64 causal), 64 keys $(el_s)"
    att --batch 2 --heads 16 --seqlen 16384 --headdim 256
    att --batch 2 --heads 16 --seqlen 16384 --headdim 256 --block-n 64
    echo "== GEMV bf16: checked runs, then the ring's depth 4 (default), 3, 6, 8 $(el_s)"
    for s in 3 6 8; do echo "run stages $s: $(timeout 20 build/cutec run gemv --dtype bf16 --shape 16385x4096 --batch 2 --smem-stages $s --iters 3 2>&1 | tail -n 1)"; done
    for s in "" "--smem-stages 3" "--smem-stages 6" "--smem-stages 8"; do
        echo "-- stages: ${s:-default}"
        timeout 30 stdbuf -oL -eL build/cutec bench gemv --dtype bf16 --iters 20 $s 2>&1 | tail -n 4
    done
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
