#!/bin/sh
# Issue 20 on a host with two GPUs (nvidia-h200-x2 / nvidia-h100-x2), engineer tp2: the
# tensor-parallel GEMM whose pieces are ordered by flags in the kernels (cutec_gemm_peer)
# against the one ordered by events, each beside cuBLAS GEMM + NCCL in the same run, and
# NCCL through cutec against torch.distributed (torchrun, 2 processes) on the same sizes.
#   tests: kernels/gemm/peer_gemm_test (interpreter part, then the flagged GEMM on two GPUs),
#          comm/peer_test
#   tp-gemm row (8192x8192x16384, K split) and column (8192x8192x8192), bf16: events vs flags,
#          each with cutec's C row-major (as before) and column-major (C^T = B A^T, the
#          layout `cutec bench gemm` measured at cuBLAS's speed), the row with 16 chunks too;
#          e4m3 with flags
#   all-reduce / all-gather / reduce-scatter of 128 MiB bf16 (C's and A's size): cutec, torch
# Under 150 s on two H200s (the build is done before); logs in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/tp2.log"
start=$(date +%s)
tp() { echo "== cutec bench tp-gemm $* $(el_s)"; timeout 40 build/cutec bench tp-gemm --iters ${ITERS:-10} "$@" 2>&1; }
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    make -j32 build/cutec build/tests/kernels/gemm/peer_gemm_test build/tests/comm/peer_test 2>&1 | grep -E "error|warning" | head
    TEST_TIMEOUT=40 device_tests kernels/gemm/peer_gemm_test comm/peer_test
    tp --mode row --order events
    tp --mode row --order flags
    tp --mode row --order events --c-major column
    tp --mode row --order flags --c-major column
    tp --mode row --order flags --c-major column --chunks 16
    tp --mode column --order events --c-major column
    tp --mode column --order flags --c-major column
    tp --mode column --order flags
    tp --dtype e4m3 --order flags --c-major column
    echo "== NCCL through cutec, 128 MiB bf16 $(el_s)"
    for op in all-reduce all-gather reduce-scatter; do
        timeout 20 build/cutec bench $op --dtype bf16 --sizes 128M 2>&1
    done
    echo "== torch.distributed, torchrun --nproc_per_node 2, the same sizes $(el_s)"
    run=torchrun
    command -v torchrun >/dev/null 2>&1 || run="python3 -m torch.distributed.run"
    timeout 60 $run --nproc_per_node 2 bench/torch_nccl.py all-reduce,all-gather,reduce-scatter --dtype bf16 \
        --sizes 128M 2>&1 | grep -v -i warn
    echo "== done $(el_s)"
} 2>&1 | tee "$log" | tail -n "${TAIL:-150}"
