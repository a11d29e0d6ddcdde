#!/bin/sh
# The GEMV pass of branch gemv3 on a GPU machine (issue 17), in the order that keeps the
# rows a time limit would cut last: the skinny GEMMs of the issue through cutec_gemm (bf16
# and f32, M = 1, 8, 16, 64 at N = K = 8192, 4097x3x8191, 3x5x100000), then torch.mv /
# torch.mm on the same shapes in the same session, `cutec bench gemv` bf16 (8192x8192,
# 16384x4096, 4096x16384) and nvfp4 (seed 001's (M,K,L)), each beside a device copy of the
# same bytes in the same process, the NVFP4 kernel's registers, then the paired-f16 and
# GEMV tests on the GPU.  Results in $OUT (default build/device-out); the log's tail is
# printed.  About 3 minutes on an H100 or H200.
. scripts/device-common.sh
log="$out/gemv3.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    echo "== build"
    make -j16 all build/tests/tensor/half2_words_test build/tests/tensor/half2_test \
        build/tests/kernels/gemv/gemv_test build/tests/kernels/gemv/blockscaled_test 2>&1 |
        grep -E "error|warning" | head -40
    echo "== skinny GEMM through cutec_gemm (AUTO routes N or M <= 8 to the GEMV kernels)"
    for d in bf16 f32; do
        for s in "--m 1 --n 8192 --k 8192" "--m 8 --n 8192 --k 8192" "--m 16 --n 8192 --k 8192" \
                 "--m 64 --n 8192 --k 8192" "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
            # shellcheck disable=SC2086
            timeout 30 build/cutec run gemm --dtype $d --out-dtype $d --layout tn $s --iters 20 2>&1 | tail -n 1
        done
    done
    echo "== torch.mv / torch.mm, same session"
    timeout 60 python3 bench/torch_gemv.py 2>&1
    for d in bf16 nvfp4 f32; do
        echo "== bench gemv $d (nvfp4: seed 001's (M,K,L); GB/s of what it must read)"
        timeout 40 build/cutec bench gemv --dtype $d --iters 20 2>&1
    done
    echo "== registers and spills (ptxas, sm_90a)"
    for d in bf16 nvfp4; do
        echo "$d: $(build/cutec compile gemv --dtype $d --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    done
    TEST_TIMEOUT=40 device_tests tensor/half2_words_test tensor/half2_test kernels/gemv/blockscaled_test
    TEST_TIMEOUT=45 device_tests kernels/gemv/gemv_test
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
