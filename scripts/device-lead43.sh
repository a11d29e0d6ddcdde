#!/bin/sh
# The lead's last pass of session 43 (one H200; log $OUT/lead43.log, about 90 s after the
# build): cuda_c_fold_test on the GPU (its step-5 budgets per C tile, c45d58a6: the whole
# suite's one failure), the decode rows census18 ran out of budget for (8 x 32 heads, KV 32k,
# d128; 32 and 8 KV heads), and the SM80 f16 GEMM at 4096^3 that census13 read 0.01 TFLOP/s
# under its 80% line: three rows of the default (4 stages, the stmatrix C tile) in one process
# beside cuBLAS, after this process's `cutec bench mma` ceiling.  Decides: a failed test names
# the fix to revert; the f16 rows print their share of the ceiling.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead43: skipped: no GPU here"; exit 0; }
log="$out/lead43.log"
start=$(date +%s) budget=${BUDGET_S:-120}
{
    device_head
    TEST_TIMEOUT=60 device_tests backend/cuda_c_fold_test
    grep -q " 0 failed" "$out/cuda_c_fold_test.log" || echo "decides: revert c45d58a6 (cuda_c_fold_test)"
    echo "-- decode $(el_s)"
    device_late decode || timeout 60 build/cutec bench attention --iters 10 --decode 2>&1 |
        grep -E "^bf16|^decode|of SDPA|copy|WRONG|rror"
    echo "-- f16 4096^3, the mma.sync ceiling first $(el_s)"
    device_late f16 || {
        timeout 30 build/cutec bench mma --iters 5 2>&1 | grep -E "^f16 "
        timeout 40 build/cutec bench gemm --variants tensorop_smem --dtype f16 --layout tn --sizes 4096 \
            --stages 4,4,4 --iters 20 2>&1 | grep -vE "^# (index|check)"
    } | tee "$out/f16.txt"
    awk '/^f16 /{c = $(NF - 4)} /tensorop_smem/ && c {printf "decides: f16 4096^3 %s: %.2f%% of the ceiling %.1f\n", $2, 100 * $4 / c, c}' \
        "$out/f16.txt"
    device_end
} 2>&1 | tee "$log"
