#!/bin/sh
# The lead's part of session 27's final pass (under 150 s on an H200): what the session's
# refactors touched on the Hopper path, on the GPU: the grouped GEMM (its walk and producer now
# shared with the Blackwell form) and the dual GEMM (its B1 map now made by a shared helper),
# tests then the benchmarks against cuBLAS in the same process.  Logs in $OUT.
. scripts/device-common.sh
log="$out/lead27.log"
{
    echo "== $(date -u '+%F %T') $(git log --oneline -1 2>/dev/null)"
    TEST_TIMEOUT=60 device_tests kernels/gemm/grouped_test
    echo "== run gemm --groups (every element of every group against float64)"
    timeout 20 build/cutec run gemm --groups 7 --m 300 --n 520 --k 264 --dtype bf16 2>&1 | tail -n 2
    echo "== bench gemm --groups (MoE, N = K = 4096) against a loop of cuBLAS calls"
    timeout 25 build/cutec bench gemm --groups 8 --tokens 512 --sizes 4096 --dtype bf16 --iters 10 2>&1 | tail -n 2
    echo "== bench gemm --epilogue swiglu 8192 (the dual GEMM) against two cuBLAS calls + silu(x) y"
    timeout 30 build/cutec bench gemm --dtype bf16 --layout tn --variants hopper --sizes 8192 --epilogue swiglu \
        --iters 10 2>&1 | grep -E "^[0-9#]" | grep -v "^# \(index\|time\|check\)"
} >"$log" 2>&1
cat "$log"
