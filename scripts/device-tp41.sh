#!/bin/sh
# Issue 20's row mark in both of the card's regimes (the lead, session 41), each process one
# schedule in turns with cuBLAS GEMM + NCCL all-reduce after checking its C against the
# baseline's on both GPUs: hot (B S B S B S back to back, 10 iterations a timing: both at the
# power cap), and rested (`--rest 1000 --iters 1`: each timing ~15 ms of work after a second of
# idle GPUs: both as bursts at boost clocks, the regime of the 1.43 ms GEMM and 1.96 ms
# baseline), the default (events, C column-major, halving chunks) and fused row-major; then the
# column schedule (against NCCL all-gather + cuBLAS GEMM) and the e4m3 row schedule (against
# cuBLASLt + NCCL), rested and hot.  Two GPUs of one host; about 100 s; log $OUT/tp41.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tp41: skipped: no GPU here"; exit 0; }
log="$out/tp41.log"
start=$(date +%s) budget=${BUDGET_S:-95}
tp()
{
    device_late tp-gemm "$@" && return
    echo "== cutec bench tp-gemm $* $(el_s)"
    timeout 30 stdbuf -oL -eL build/cutec bench tp-gemm "$@" 2>&1 |
        grep -E "^check|^in turns|^cuBLAS GEMM, then|^NCCL all-gather, then|^events|^fused|^flags|WRONG|rror" | tee -a "$out/pairs.txt"
}
{
    device_head
    : >"$out/pairs.txt"
    tp --mode row --rest 1000 --iters 1
    tp --mode row --iters 10
    tp --mode row --rest 1000 --iters 1 --order fused
    tp --mode column --rest 1000 --iters 1
    tp --mode column --iters 10
    tp --mode row --dtype e4m3 --rest 1000 --iters 1
    tp --mode row --rest 1000 --iters 1
    echo "== the pairs' ratios (each process's median of three turns; rested first, hot second, ...)"
    awk '/^in turns/ { r = $0 ~ /idle/ ? "rested" : "hot"; on = 1; next } on && /^(events|fused|flags), / { print r ": " $0; on = 0 }' "$out/pairs.txt"
    device_end
} 2>&1 | tee "$log"
