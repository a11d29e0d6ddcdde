#!/bin/sh
# The lead's last pass of session 42 (one H200; log $OUT/lead42.log, about 100 s after the
# build): the GEMV's test programs on the GPU after every branch of the session was merged,
# mma_gpu_test first (its f32 case at 24 vectors now asks the ring of 5 stages that fits a
# block: the whole suite's three failures at 6), then gemv_test and blockscaled_test (the
# dependent launches of the rows and NVFP4 kernels, odd42's early prefetch, f32sk42's k pairs
# on the GPU where the programs take it), and the env readers (the diagnostics saying
# themselves).  What it decides: a program with a failure names the lead's fix to revert.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead42: skipped: no GPU here"; exit 0; }
log="$out/lead42.log"
start=$(date +%s) budget=${BUDGET_S:-120}
{
    device_head
    TEST_TIMEOUT=100 device_tests kernels/gemv/mma_gpu_test kernels/gemv/gemv_test kernels/gemv/blockscaled_test \
        env/env_readers_test
    grep -L " 0 failed" "$out"/mma_gpu_test.log "$out"/gemv_test.log "$out"/blockscaled_test.log \
        "$out"/env_readers_test.log 2>/dev/null | sed 's/^/decides: revert what touched /'
    device_end
} 2>&1 | tee "$log"
