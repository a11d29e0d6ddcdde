#!/bin/sh
# The lead's check of session 33's new defaults on the GPU (no timing but the attention rows):
# the fp8 FFMA rewrite (`CUTEC_SASS_FFMA=reuse`, now the default) through scaled_test's GPU
# cases and block-scaled runs at odd sizes and other tiles; NVFP4's scales by their bits
# (CUTE_GEMV_FMA_DECODE 1) through blockscaled_test and gemv_test; the PTX path's three forms
# (now on inside it) through cuda_c_gpu_test with CUTEC_CODEGEN=ptx; the norms' new backward
# through norms_test and rows_gpu_test; the Hopper forward at 160/224 and the rest through
# attention_test.  Then d128 2x16x16384 again with 10 iterations (the first final pass read
# 642.6 TFLOP/s in 4, the mid pass 689.1, session 32 700.8-717.4).  Decides nothing: a FAIL
# line names a default to take back.  PART=1 (the GEMMs, GEMV, norms), PART=2 (the PTX path,
# attention, stream-K's test), each under 240 s on an H200; log $OUT/lead33c.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead33c: skipped: no GPU here"; exit 0; }
log="$out/lead33c.log"
start=$(date +%s)
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
  if [ "${PART:-1}" = 1 ]; then
    echo "== block-scaled fp8 runs (the FFMA rewrite by default) $(el_s)"
    for a in "--m 1021 --n 1016 --k 1024" "--m 777 --n 1304 --k 2048 --tile 128x128x128" "--m 4099 --n 520 --k 4096" \
             "--m 256 --n 7168 --k 7168"; do
        echo "$a: $(timeout 30 build/cutec run gemm --dtype e4m3 --out-dtype bf16 --variant hopper --layout tnt --scale block $a --iters 3 2>&1 | grep -E "verified|WRONG|wrong|rror" | tail -n 1)"
    done
    TEST_TIMEOUT=120 device_tests kernels/gemm/scaled_test kernels/gemv/blockscaled_test kernels/gemv/gemv_test \
        kernels/rows/norms_test kernels/rows/rows_gpu_test
  else # PART=2 (device-lanes.sh's "lead33c=2:SECONDS")
    echo "== the PTX path on the GPU (its three forms on) $(el_s)"
    CUTEC_CODEGEN=ptx TEST_TIMEOUT=120 device_tests backend/cuda_c_gpu_test
    TEST_TIMEOUT=200 device_tests kernels/attention/attention_test
    echo "== d128 2x16x16384, 10 iterations (SDPA beside) $(el_s)"
    timeout 60 stdbuf -oL -eL build/cutec bench attention --batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 10 2>&1 | grep -E "^bf16|SDPA"
    TEST_TIMEOUT=100 device_tests kernels/gemm/streamk_sm80_test
  fi
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
