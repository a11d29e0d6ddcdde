#!/bin/sh
# Every GPU test of the tree on a GPU machine, one line each (failures listed), and the
# instruction table's hardware record regenerated (src/interp/gpu/hw_mma.cu) into $OUT with
# the replay run against it.  Logs go to $OUT (default build/device-out).
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-check: skipped: no GPU here"; exit 0; }
export PATH=$PATH:/usr/local/cuda/bin
echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader 2>&1)"
make -j16 all tests 2>&1 | grep -E "error|warning" | head -20
for t in ${TESTS:-atom/atom_lane_test atom/ldsm_mma_test atom/atom_swap_test kernels/gemm/tensorop_test kernels/gemm/gemm_test kernels/gemm/lib_test kernels/mma_peak_test jit/thread_test jit/launch_v2_test jit/alias_test interp/inst_gpu_test backend/cuda_c_gpu_test backend/narrow_cvt_test kernels/elementwise_test kernels/ew_apply_test cli/cublas_test runtime/cuda_backend_test tensor/smem_test}; do
    [ -x build/tests/$t ] || { echo "$t: not built"; continue; }
    timeout 240 build/tests/$t > "$out/$(basename $t).log" 2>&1
    echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
    grep -m 4 FAIL "$out/$(basename $t).log" | cut -c1-300
done
if nvcc -O2 -arch=sm_90a src/interp/gpu/hw_mma.cu -o /tmp/hw_mma 2>"$out/hw_build.log" && /tmp/hw_mma > "$out/hw_mma_cases.h"; then
    cp "$out/hw_mma_cases.h" src/interp/hw_mma_cases.h
    make -j16 build/tests/interp/inst_test >/dev/null 2>&1
    build/tests/interp/inst_test > "$out/inst_test_hw.log" 2>&1
    echo "inst_test on the new record: $(tail -n 1 "$out/inst_test_hw.log")"
    grep -m 6 -E "FAIL|differ" "$out/inst_test_hw.log" | cut -c1-300
else
    echo "hw_mma: build or run failed"; tail -5 "$out/hw_build.log"
fi
