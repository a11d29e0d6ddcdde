#!/bin/sh
# Issue 20 on two GPUs of one host (CUDA_VISIBLE_DEVICES holds two), engineer tp3: the row-
# parallel all-reduce done in the GEMMs' epilogues (`--order fused`: two GEMMs a GPU, the
# reduce-scatter by peer stores of the partial with per-tile flags, the all-gather by a mirror
# store of each finished tile; no copy, no NCCL) against the events and flags schedules,
# each beside cuBLAS GEMM + NCCL all-reduce in the same run.
#   tests: kernels/gemm/peer_gemm_test (interpreter part, then two GPUs: the flagged GEMM
#          and the fused all-reduce), comm/peer_test
#   tp-gemm row 8192x8192x16384 (K split) bf16: fused (C row- and column-major to the
#          kernel), events and flags (column-major, the best before); e4m3 fused and flags;
#          column 8192x8192x8192 bf16 with flags (row-major C, 0.743 before)
#   the Hopper GEMM alone at 8192^3 beside cuBLAS on GPU 0, then on both GPUs at once (is the
#          tp bench's 1.64 ms GEMM the kernel, the data, or two GPUs busy together?)
# Under 150 s on two H200s (the build is done before); logs in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/tp3.log"
start=$(date +%s)
tp() { echo "== cutec bench tp-gemm $* $(el_s)"; timeout 40 stdbuf -oL -eL build/cutec bench tp-gemm --iters ${ITERS:-10} "$@" 2>&1; }
gemm1() { timeout 30 stdbuf -oL -eL build/cutec bench gemm --dtype bf16 --variants hopper --sizes 8192 --iters 10 "$@" 2>&1 | grep -E "^ *[0-9]|rror|refus|cuBLAS"; }
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit --format=csv 2>&1
    make -j16 build/cutec build/tests/kernels/gemm/peer_gemm_test build/tests/comm/peer_test 2>&1 | grep -E "error|warning" | head
    TEST_TIMEOUT=40 device_tests kernels/gemm/peer_gemm_test comm/peer_test
    tp --mode row --order fused
    tp --mode row --order fused --c-major column
    tp --mode row --order events --c-major column
    tp --mode row --order flags --c-major column
    tp --mode row --order fused --dtype e4m3
    tp --mode row --order flags --dtype e4m3 --c-major column
    tp --mode column --order flags
    echo "== cutec bench gemm bf16 8192^3 on GPU 0 alone, tn (C column-major) and tnt (row-major) $(el_s)"
    gemm1 --layout tn
    gemm1 --layout tnt
    echo "== the same tnt on both GPUs at once $(el_s)"
    first=$(echo "${CUDA_VISIBLE_DEVICES:-0,1}" | cut -d, -f1) second=$(echo "${CUDA_VISIBLE_DEVICES:-0,1}" | cut -d, -f2)
    CUDA_VISIBLE_DEVICES=$second gemm1 --layout tnt > "$out/gemm_second.txt" &
    CUDA_VISIBLE_DEVICES=$first gemm1 --layout tnt
    wait
    sed 's/^/second GPU: /' "$out/gemm_second.txt"
    nvidia-smi --query-gpu=index,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv 2>&1
    echo "== done $(el_s)"
} 2>&1 | tee "$log" | tail -n "${TAIL:-200}"
