#!/bin/sh
# Issue 20's row-parallel GEMM on two GPUs of one host (CUDA_VISIBLE_DEVICES holds two),
# engineer tp20: do the overlapped schedules' GEMMs lose to the library's own GEMM by their
# tiling?  The flag kernels (cutec_gemm_peer) kept the plan's defaults (128 x 256 tiles, no
# cluster, stores piece by piece) where the library runs a whole 8192^3 GEMM in 2x1 clusters
# with the whole tile's store.  `cutec bench tp-gemm --pieces library` runs every overlapped
# GEMM in the library's tiling for the rank's whole local GEMM and times the same schedule in
# the kernels' own tiling beside it, cuBLAS GEMM + NCCL all-reduce in the same process.
#   tests: kernels/gemm/peer_gemm_test (the fused all-reduce in 2x1 clusters on two GPUs
#          among its cases), comm/peer_test
#   row 8192x8192x16384 bf16: fused, events, flags (C column-major to the kernel, the best
#          before), fused C row-major; fused in 2x1 with piece stores, 1x1 with the whole
#          tile's; e4m3 fused in 2x1 tile; column parallel with --pieces library
#   the Hopper GEMM alone at 8192^3 (tnt) on GPU 0 in 2 ms bursts and sustained over 100 ms
#          (CUTEC_BENCH_SPAN_MS=100): the tp bench's 1.64 ms GEMM is the card at its power cap?
# The SM clock and power of both GPUs every 500 ms into $OUT/clocks.csv while the benches run.
# Under 150 s on two H200s (every step under its timeout, skipped past BUDGET_S); logs in $OUT.
. scripts/device-common.sh
log="$out/tp20.log"
start=$(date +%s)
budget=${BUDGET_S:-140}
el() { echo "($(($(date +%s) - start)) s)"; }
tp()
{
    if device_late tp-gemm "$@"; then return; fi
    echo "== cutec bench tp-gemm $* $(el)"
    timeout 30 stdbuf -oL -eL build/cutec bench tp-gemm --iters "${ITERS:-10}" "$@" 2>&1 |
        grep -v "^mode\|^row  \|^column  "
}
gemm1()
{
    if device_late gemm "$@"; then return; fi
    echo "-- bench gemm bf16 8192^3 tnt hopper $* $(el)"
    timeout 25 stdbuf -oL -eL build/cutec bench gemm --dtype bf16 --layout tnt --variants hopper --sizes 8192 \
        --iters 10 "$@" 2>&1 | grep -E "^ *[0-9]|rror|refus|SM clock"
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit --format=csv 2>&1
    make -j16 build/cutec build/tests/kernels/gemm/peer_gemm_test build/tests/comm/peer_test 2>&1 |
        grep -E "error|warning" | head
    TEST_TIMEOUT=40 device_tests kernels/gemm/peer_gemm_test comm/peer_test
    nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw --format=csv,noheader -lms 500 >"$out/clocks.csv" 2>&1 &
    smi=$!
    tp --mode row --order fused --c-major column --pieces library
    tp --mode row --order events --c-major column --pieces library
    tp --mode row --order fused --pieces library
    tp --mode row --order flags --c-major column --pieces library
    tp --mode row --order events --c-major column --pieces library --chunks 4
    tp --mode row --order fused --c-major column --cluster 2x1 --store tma
    tp --mode row --order fused --c-major column --store tile
    tp --mode row --order fused --dtype e4m3 --cluster 2x1 --store tile
    tp --mode column --order flags --pieces library
    echo "== the GEMM alone on GPU 0: 2 ms bursts, then sustained (100 ms spans) $(el)"
    first=$(echo "${CUDA_VISIBLE_DEVICES:-0,1}" | cut -d, -f1)
    (export CUDA_VISIBLE_DEVICES=$first; gemm1)
    (export CUDA_VISIBLE_DEVICES=$first CUTEC_BENCH_SPAN_MS=100; echo "   sustained (CUTEC_BENCH_SPAN_MS=100):"; gemm1)
    kill "$smi" 2>/dev/null
    echo "== SM clock (MHz) and power (W) of each GPU while the benches ran: min / mean / max"
    awk -F', ' '{ c = $3 + 0; p = $4 + 0; i = $2; n[i]++; sc[i] += c; sp[i] += p;
                 if (!(i in lo) || c < lo[i]) lo[i] = c; if (c > hi[i]) hi[i] = c; if (p > pm[i]) pm[i] = p }
         END { for (i in n) printf "GPU %s: %d samples, SM %d / %d / %d MHz, power mean %.0f W, max %.0f W\n",
                                   i, n[i], lo[i], sc[i] / n[i], hi[i], sp[i] / n[i], pm[i] }' "$out/clocks.csv"
    device_end
} 2>&1 | tee "$log" | tail -n "${TAIL:-200}"
