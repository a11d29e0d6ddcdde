#!/bin/sh
# The GEMV pass of branch gemv2 on a GPU machine (issue 17): the GEMV tests on the GPU, odd
# shapes against float64 (the K-major kernel's two rows a warp with an odd last row, NVFP4's
# four rows a warp), `cutec bench gemv` (bf16 / f16 / f32 / e4m3 / nvfp4 / mxfp8, each beside
# a device copy of the same bytes in the same process), the split decision at 4096x16384
# (now none) against forced splits, the skinny shapes through cutec_gemm, torch.mv / torch.mm
# on the same shapes in the same session, and ptxas's registers.  Results in $OUT (default
# build/device-out); the log's tail is printed.  About 3 minutes on an H100 or H200.
. scripts/device-common.sh
log="$out/gemv2.log"
{
    device_begin
    device_tests kernels/gemv/gemv_test kernels/gemv/blockscaled_test
    echo "== run gemv on the GPU: odd sizes, batches, split-K, against float64"
    for a in "--dtype bf16 --shape 1021x4099 --batch 3" "--dtype f32 --shape 5x100000" \
             "--dtype f16 --shape 4097x8191 --layout cols" "--dtype e4m3 --shape 777x3000" \
             "--dtype bf16 --shape 3x8192 --splits 8" "--dtype nvfp4 --shape 1001x4128 --batch 2" \
             "--dtype nvfp4 --shape 131x2112" "--dtype mxfp8 --shape 515x2080"; do
        # shellcheck disable=SC2086
        timeout 60 build/cutec run gemv $a 2>&1 | tail -n 2
    done
    for d in bf16 f16 f32 e4m3 nvfp4 mxfp8; do
        echo "== bench gemv $d (nvfp4/mxfp8: seed 001's (M,K,L); GB/s of what it must read)"
        timeout 60 build/cutec bench gemv --dtype $d --iters 20 2>&1
    done
    echo "== 4096x16384 bf16: the library's choice (no split) against forced splits"
    for s in 1 2 3; do
        timeout 60 build/cutec bench gemv --dtype bf16 --shape 4096x16384 --splits $s --iters 20 2>&1 | tail -n 1
    done
    echo "== skinny GEMM through cutec_gemm (AUTO routes N or M <= 8 to the GEMV kernels)"
    for d in bf16 f32; do
        for s in "--m 1 --n 8192 --k 8192" "--m 8 --n 8192 --k 8192" "--m 16 --n 8192 --k 8192" \
                 "--m 64 --n 8192 --k 8192" "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
            # shellcheck disable=SC2086
            timeout 60 build/cutec run gemm --dtype $d --out-dtype $d --layout tn $s --iters 20 2>&1 | tail -n 1
        done
    done
    echo "== torch.mv / torch.mm, same session"
    timeout 120 python3 bench/torch_gemv.py 2>&1
    echo "== registers and spills (ptxas, sm_90a)"
    for d in bf16 f16 f32 e4m3 nvfp4 mxfp8; do
        echo "$d: $(build/cutec compile gemv --dtype $d --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 90 "$log"
