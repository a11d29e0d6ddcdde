#!/bin/sh
# The row-reduction pass on a GPU machine (issue 16): build, the row kernels' tests on the
# GPU at the benchmark sizes, then `cutec bench` of softmax, RMSNorm, LayerNorm (forward and
# backward) and cross-entropy (forward, and forward+backward fused) in bf16 at 16384x4096,
# 4096x32768 and 1024x262144, each beside a device copy of as many bytes and PyTorch eager
# (TORCH_COMPILE=1: torch.compile too, for cross-entropy's fused pass, which adds a minute)
# in the same run; registers and spills of the kernels.  Results go to $OUT (default
# build/device-out); the log's tail is printed.  About 3 minutes on an H200.
#   OPS="softmax rmsnorm" ITERS=10 TORCH_COMPILE=1 sh scripts/device-redux.sh
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-redux: skipped: no GPU here"; exit 0; }
log="$out/redux.log"
iters=${ITERS:-10}
{
    device_begin
    echo "== tests (the GPU test at the benchmark sizes; the interpreter tests at odd sizes)"
    for t in kernels/rows/rows_gpu_test kernels/rows/softmax_test kernels/rows/norms_test kernels/rows/cross_entropy_test tensor/reduce_test; do
        [ -x build/tests/$t ] && timeout 120 build/tests/$t > "$out/$(basename $t).log" 2>&1
        echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
        grep -m 5 FAIL "$out/$(basename $t).log" | cut -c1-400
    done
    for op in ${OPS:-softmax rmsnorm layernorm cross-entropy}; do
        for dir in "" "--backward"; do
            echo "== bench $op $dir (bf16)"
            [ "$op" = cross-entropy ] && [ -n "$dir" ] && [ "${TORCH_COMPILE:-0}" = 1 ] && export CUTEC_TORCH_COMPILE=1
            # shellcheck disable=SC2086
            timeout 100 build/cutec bench $op $dir --dtype bf16 --iters "$iters" 2>&1
            unset CUTEC_TORCH_COMPILE
        done
    done
    echo "== registers and spills (ptxas -v, sm_90a) of the bf16 kernels"
    for op in softmax rmsnorm layernorm cross-entropy; do for dir in "" "--backward"; do
        for shape in 16384x4096 4096x32768 1024x262144; do
            # shellcheck disable=SC2086
            CUTEC_ARCH=sm_90a build/cutec compile $op $dir --dtype bf16 --shape $shape --emit ptx > "$out/k.ptx" 2>"$out/k.err" ||
                { echo "$op $dir $shape: $(head -c 160 "$out/k.err")"; continue; }
            echo "$op $dir $shape: $(ptxas -arch=sm_90a -v "$out/k.ptx" -o /dev/null 2>&1 | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | tr '\n' ' ')"
        done
    done; done
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 100 "$log"
