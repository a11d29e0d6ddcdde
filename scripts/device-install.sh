#!/bin/sh
# The install pass on a GPU machine (issue 19): make install into a scratch prefix, the
# examples built with pkg-config alone and run on the GPU, then a bf16 GEMM exported with
# the installed `cutec export`, its launcher built with cc against the CUDA driver alone and
# run: every element against float64 (two sizes), a refused call, the launcher's host time
# per call, its device time at 4096^3 beside `cutec bench gemm` (the same kernel through
# cute_call, and cuBLAS) in the same session; the --plot charts of bench gemm and bench
# elementwise ($OUT/*.svg); then the Python package: pip install, its
# PyTorch tests (bf16 cutec.mm against torch.mm, every dtype), its host overhead per call
# against torch.mm and the C call.  Results in $OUT (default build/device-out).
#   sh scripts/device-install.sh
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-install: skipped: no GPU here"; exit 0; }
log="$out/install.log"
prefix=$(mktemp -d)/prefix
exp=$(mktemp -d)
cuda=${CUDA_HOME:-/usr/local/cuda}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv 2>&1
    echo "== build, install, install-check (examples on the GPU)"
    make -j16 all >/dev/null 2>&1 || echo "BUILD FAILED"
    timeout 180 make -s install-check 2>&1 | tail -n 20
    make -s install PREFIX="$prefix" >/dev/null 2>&1
    echo "== cutec export gemm bf16 -> f32, tnt, sm_90a + sm_80"
    "$prefix/bin/cutec" export gemm --dtype bf16 --out-dtype f32 --layout tnt \
        --arch sm_90a,sm_80 --out "$exp" --name gemm_bf16 2>&1
    ls -l "$exp"
    cc -std=c11 -O2 -Wall -Wextra -Werror examples/exported_gemm.c "$exp/gemm_bf16.c" -I"$exp" \
        -I"$cuda/include" -L"$cuda/lib64/stubs" -lcuda -lm -o "$exp/exported_gemm" 2>&1
    echo "needs: $(readelf -d "$exp/exported_gemm" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
    echo "== the exported launcher, checked against float64"
    "$exp/exported_gemm" 1024 1024 1024; echo "exit $?"
    "$exp/exported_gemm" 1021 1028 2000; echo "exit $?"
    echo "== the exported launcher at 4096^3 (time), then the same kernel through cutec and cuBLAS"
    "$exp/exported_gemm" 4096 4096 4096 nocheck; echo "exit $?"
    build/cutec bench gemm --dtype bf16 --out-dtype f32 --layout tnt --sizes 4096 --iters 20 \
        --variants tensorop_smem 2>&1
    echo "== the charts: bench gemm bf16 (tn) and bench elementwise with --plot"
    timeout 90 build/cutec bench gemm --dtype bf16 --layout tn --sizes 1024,2048,4096 \
        --variants tensorop_smem --iters 5 --plot "$out/gemm_bf16.svg" 2>&1 | tail -n 8
    timeout 90 build/cutec bench elementwise --iters 5 --plot "$out/elementwise.svg" 2>&1 | tail -n 14
    ls -l "$out"/*.svg
    echo "== cute_call's host overhead (bench jit)"
    timeout 60 build/cutec bench jit 2>&1 | tail -n 12
    device_python
} >"$log" 2>&1
tail -n 80 "$log"
