#!/bin/sh
# Issue 20 items 2-4 on a host with two GPUs (nvidia-h100-x2 / nvidia-h200-x2): peer memory
# (comm/peer_test: the exchange kernel of cute_peer_signal / cute_peer_wait across two GPUs
# through cute_peer_alloc's mapped memory), then `cutec bench tp-gemm` (row and column
# parallel bf16, overlapped against cuBLAS GEMM + NCCL in the same run, the result checked,
# the scale model fitted) and `cutec model tp-gemm`.  Builds only what it runs (under 3
# minutes on two H200s: the tests first, then the benchmark).  Logs in $OUT (default build/device-out).
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tp: skipped: no GPU here"; exit 0; }
log="$out/tp.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    nvidia-smi topo -m 2>&1 | head -n 4
    echo "== build"
    make -j32 build/cutec build/tests/comm/peer_test build/tests/comm/comm_test 2>&1 | grep -E "error|warning" | head -20
    TEST_TIMEOUT=60 device_tests comm/peer_test
    echo "== cutec bench tp-gemm (row: 8192x8192x16384, 8 chunks; column: 8192x8192x8192)"
    timeout 100 build/cutec bench tp-gemm --iters ${ITERS:-10} 2>&1
    echo "== cutec bench tp-gemm --dtype e4m3 (fp8 in, bf16 out; cuBLASLt the baseline)"
    timeout 60 build/cutec bench tp-gemm --dtype e4m3 --iters ${ITERS:-10} 2>&1
    echo "== cutec model tp-gemm (defaults)"
    build/cutec model tp-gemm 2>&1
} 2>&1 | tee "$log" | tail -n "${TAIL:-80}"
