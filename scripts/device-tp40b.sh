#!/bin/sh
# Issue 20's row mark in pairs (the lead, session 40): each process times one schedule in turns
# with cuBLAS GEMM + NCCL all-reduce (B S B S B S: each right after the other, so neither has the
# cooler card), after checking its C against the baseline's on both GPUs.  The default (events,
# C column-major, halving chunks 2048x2,1024x2,512x4) in three processes, fused row-major in
# one, alternating.  Two GPUs of one host; about 70 s; log $OUT/tp40b.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tp40b: skipped: no GPU here"; exit 0; }
log="$out/tp40b.log"
start=$(date +%s) budget=${BUDGET_S:-70}
tp()
{
    device_late tp-gemm "$@" && return
    echo "== cutec bench tp-gemm --mode row $* $(el_s)"
    timeout 25 stdbuf -oL -eL build/cutec bench tp-gemm --mode row --iters 10 "$@" 2>&1 |
        grep -E "^check|^in turns|^cuBLAS GEMM, then|^events|^fused|WRONG|rror" | tee -a "$out/pairs.txt"
}
{
    device_head
    : >"$out/pairs.txt"
    tp
    tp --order fused
    tp
    tp --order fused
    tp
    echo "== the pairs' ratios (each process's median of three turns)"
    awk '/^in turns/ { on = 1; next } on && /^(events|fused), / { print $0; on = 0 }' "$out/pairs.txt"
    device_end
} 2>&1 | tee "$log"
