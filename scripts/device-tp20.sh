#!/bin/sh
# Issue 20's row-parallel GEMM on two GPUs of one host (CUDA_VISIBLE_DEVICES holds two),
# engineer tp20: the overlapped schedules' GEMMs in the library's tiling for the rank's whole
# local GEMM, the default now (`--pieces library`; the fused schedule without the cluster),
# each beside today's before (`the kernels' own tiling`: the flag kernels' plan, 128 x 256,
# 1x1, stores piece by piece) and cuBLAS GEMM + NCCL in the same process.  Keep the default
# where its rows lead the plan's again (mid pass, 2026-11-27, two H200s: fused column-major
# 1.652 ms against 1.762, events in 4 chunks 1.655 against 1.746, flags 1.784 against 1.811,
# column 0.725 against 0.796; events in 8 chunks 1.714 against 1.702); go back to `plan`
# (the parse default in tp_bench.c) where it trails.
#   tests: kernels/gemm/peer_gemm_test (the fused all-reduce in 2x1 clusters on two GPUs
#          among its cases), comm/peer_test
#   row 8192x8192x16384 bf16: fused (C column-major to the kernel, then row-major), fused
#          with the cluster (--cluster 2x1: does 1x1 lead again?), events in 4 and 8 chunks,
#          flags; the column schedule; e4m3 fused in 1x1 whole tiles beside the plan's (no
#          library row for fp8: a candidate, not the default)
#   the Hopper GEMM alone at 8192^3 (tnt) on GPU 0 in 2 ms bursts and sustained over 100 ms
#          (CUTEC_BENCH_SPAN_MS=100): the tp bench's GEMMs run at the power cap's clock
# The SM clock and power of both GPUs every 500 ms into $OUT/clocks.csv while the benches run.
# Under 150 s on two H200s (every step under its timeout, skipped past BUDGET_S); logs in $OUT.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tp20: skipped: no GPU here"; exit 0; }
log="$out/tp20.log"
start=$(date +%s)
budget=${BUDGET_S:-140}
tp()
{
    if device_late tp-gemm "$@"; then return; fi
    echo "== cutec bench tp-gemm $* $(el_s)"
    timeout 30 stdbuf -oL -eL build/cutec bench tp-gemm --iters "${ITERS:-10}" "$@" 2>&1 |
        grep -v "^mode\|^row  \|^column  "
}
gemm1()
{
    if device_late gemm "$@"; then return; fi
    echo "-- bench gemm bf16 8192^3 tnt hopper $* $(el_s)"
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
    tp --mode row --order fused --c-major column
    tp --mode row --order events --c-major column --chunks 4
    tp --mode row --order fused
    tp --mode row --order fused --c-major column --cluster 2x1
    tp --mode row --order events --c-major column
    tp --mode row --order flags --c-major column
    tp --mode column --order flags
    tp --mode row --order fused --dtype e4m3 --c-major column --store tile
    echo "== the GEMM alone on GPU 0: 2 ms bursts, then sustained (100 ms spans) $(el_s)"
    first=$(echo "${CUDA_VISIBLE_DEVICES:-0,1}" | cut -d, -f1)
    (export CUDA_VISIBLE_DEVICES=$first; gemm1)
    (export CUDA_VISIBLE_DEVICES=$first CUTEC_BENCH_SPAN_MS=100; echo "   sustained (CUTEC_BENCH_SPAN_MS=100):"; gemm1)
    kill "$smi" 2>/dev/null
    echo "== SM clock (MHz) and power (W) of each GPU under load (samples over 300 W): min / mean / max"
    awk -F', ' '$4 + 0 > 300 { c = $3 + 0; p = $4 + 0; i = $2; n[i]++; sc[i] += c; sp[i] += p;
                 if (!(i in lo) || c < lo[i]) lo[i] = c; if (c > hi[i]) hi[i] = c; if (p > pm[i]) pm[i] = p }
         END { for (i in n) printf "GPU %s: %d samples, SM %d / %d / %d MHz, power mean %.0f W, max %.0f W\n",
                                   i, n[i], lo[i], sc[i] / n[i], hi[i], sp[i] / n[i], pm[i] }' "$out/clocks.csv"
    device_end
} 2>&1 | tee "$log" | tail -n "${TAIL:-200}"
