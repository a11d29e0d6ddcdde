#!/bin/sh
# The GEMV pass of branch gemv3 on a GPU machine (issue 17): the paired-f16 and GEMV tests on
# the GPU first, then `cutec bench gemv` nvfp4 (seed 001's (M,K,L)) and bf16 (8192x8192,
# 16384x4096, 4096x16384), each beside a device copy of the same bytes in the same process,
# the skinny GEMMs of the issue through cutec_gemm (bf16 and f32, M = 1, 8, 16, 64 at
# N = K = 8192, 4097x3x8191, 3x5x100000), torch.mv / torch.mm on the same shapes in the same
# session, and the kernels' registers.  Results in $OUT (default build/device-out); the
# log's tail is printed.  About 2 minutes on an H200 (the first pass: 120 s).
. scripts/device-common.sh
log="$out/gemv3.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    echo "== build"
    make -j16 all build/tests/tensor/half2_words_test build/tests/tensor/half2_test \
        build/tests/trace/index_div_test build/tests/kernels/gemv/gemv_test \
        build/tests/kernels/gemv/blockscaled_test 2>&1 | grep -E "error|warning" | head -40
    TEST_TIMEOUT=40 device_tests tensor/half2_words_test tensor/half2_test trace/index_div_test \
        kernels/gemv/blockscaled_test
    for d in nvfp4 bf16; do
        echo "== bench gemv $d (nvfp4: seed 001's (M,K,L); GB/s of what it must read)"
        timeout 40 build/cutec bench gemv --dtype $d --iters 20 2>&1
    done
    echo "== skinny GEMM through cutec_gemm (AUTO routes N or M <= 8 to the GEMV kernels)"
    for d in bf16 f32; do
        for s in "--m 1 --n 8192 --k 8192" "--m 8 --n 8192 --k 8192" "--m 16 --n 8192 --k 8192" \
                 "--m 64 --n 8192 --k 8192" "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
            echo "$d $s: $(timeout 30 build/cutec run gemm --dtype $d --out-dtype $d --layout tn $s --iters 20 2>&1 | tail -n 1)"
        done
    done
    echo "== torch.mv / torch.mm, same session"
    timeout 60 python3 bench/torch_gemv.py 2>&1
    echo "== registers and spills (ptxas, sm_90a)"
    for d in bf16 nvfp4; do
        echo "$d: $(build/cutec compile gemv --dtype $d --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    done
    TEST_TIMEOUT=45 device_tests kernels/gemv/gemv_test
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
