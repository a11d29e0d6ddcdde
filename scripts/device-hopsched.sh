#!/bin/sh
# The Hopper GEMM's clusters and scheduling (issue 15 item 1, engineer hopsched): build,
# hopper_test on the GPU (clusters 2x1 / 1x2 / 2x2 with TMA multicast among its cases) and
# sync_gpu_test (the remote-arrive rows), then
# `cutec bench gemm --variants hopper` beside cuBLAS in one process on the same gaussian
# inputs: bf16 tn at 2048^3, 4096^3, 8192^3 and the LLM shapes (M x N x K) swept over the
# clusters (--cluster 1x1,2x1,1x2: a row each, hopper1x1 ...), f16 likewise at the squares,
# with CHOICE=1 the library's own choice (no --cluster) last; registers and SASS of a 2x1
# kernel.
# Logs go to $OUT (default build/device-out).
#   CLUSTERS=1x1,2x1,1x2,2x2 RASTERS=8 F16_CLUSTERS=1x1,2x1 CHOICE=1 sh scripts/device-hopsched.sh
. scripts/device-common.sh
clusters=${CLUSTERS:-1x1,2x1,1x2,2x2}
rasters=${RASTERS:-8}
shapes=${SHAPES:-2048,4096,8192,8192x8192x1024,8192x28672x4096,8192x4096x14336,8192x6144x4096}
log="$out/hopsched.log"
bench() # dtype, sizes, extra options
{
    d=$1 s=$2
    shift 2
    # shellcheck disable=SC2068
    timeout 150 build/cutec bench gemm --dtype "$d" --layout tn --sizes "$s" --variants hopper --iters "$iters" $@ 2>&1 |
        grep -E "^[0-9#]" | grep -v "^# \(index\|time\|check\|cuBLAS:\)"
}
{
    device_head
    echo "== build"
    make -j16 build/cutec build/tests/kernels/gemm/hopper_test build/tests/interp/sync_gpu_test 2>&1 | grep -E "error|warning" | head -20
    device_tests kernels/gemm/hopper_test interp/sync_gpu_test
    echo "== bench bf16 tn, clusters $clusters, rasters $rasters"
    bench bf16 "$shapes" --cluster "$clusters" --raster "$rasters"
    echo "== bench f16 tn, clusters ${F16_CLUSTERS:-1x1,2x1}"
    bench f16 2048,4096,8192 --cluster "${F16_CLUSTERS:-1x1,2x1}"
    if [ -n "${CHOICE:-}" ]; then
        echo "== bench bf16 tn, the library's choice"
        bench bf16 "$shapes"
    fi
    echo "== registers, spills and SASS of the 2x1 kernel"
    CUTEC_ARCH=sm_90a build/cutec compile gemm --dtype bf16 --variant hopper --layout tn --cluster 2x1 --emit cuda > "$out/k.cu" 2>/dev/null
    nvcc -arch=sm_90a -cubin -Xptxas -v "$out/k.cu" -o "$out/k.cubin" 2>&1 | grep -E "registers|spill|serial"
    cuobjdump -sass "$out/k.cubin" | grep -oE "(HGMMA|UTMALDG|SYNCS|USETMAXREG|UCGABAR)[.A-Z0-9_x]*" | sort | uniq -c
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
