#!/bin/sh
# The lead's question of session 29: do cutec's Hopper GEMMs keep their lead over cuBLAS under
# sustained load, where the H200's power cap sets the clock (tp3's final pass saw the SW power
# cap active after 8192^3 bf16 runs, and the tp-gemm bench's GEMMs, timed over 80 ms, ran 1.56-
# 1.65 ms where 2 ms bursts give 1.40)?  Each row twice: 2 ms timing spans (the default) and
# 100 ms spans (CUTEC_BENCH_SPAN_MS=100), the SM clock and power read after each.
# Under 150 s on an H200 after `make all tests`; log $OUT/lead29.log.
. scripts/device-common.sh
log="$out/lead29.log"
start=$(date +%s)
smi() { nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader 2>&1; }
g() # span-ms args...
{
    span=$1 && shift
    echo "== span $span ms: cutec bench gemm $* $(el_s)"
    CUTEC_BENCH_SPAN_MS=$span timeout 40 stdbuf -oL -eL build/cutec bench gemm --layout tn --variants hopper --iters 7 "$@" 2>&1 |
        grep -E "^ *[0-9]|rror|refus"
    echo "clock, power, temperature, reasons after: $(smi)"
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit --format=csv 2>&1
    for span in 2 100; do
        g $span --dtype bf16 --sizes 8192
        g $span --dtype bf16 --sizes 4096
        g $span --dtype bf16 --sizes 8192 --cluster 2x1
        g $span --dtype e4m3 --scale tensor --sizes 8192
    done
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
