#!/bin/sh
# The cold-compile pass on a GPU machine (issue 13, docs/compile_time.md): build; the phases
# of the step-5 GEMM's, the SGEMM's and the elementwise kernel's cold compile on this
# machine's CPU (--emit time); the GPU tests that run the folded CUDA C (the emitter, the
# tensor-core GEMMs, elementwise_apply); odd-sized GEMMs with beta != 0 (the predicated reads
# of C) against float64; a cold compile through the driver (`bench jit`); the bf16 and f32
# GEMMs against cuBLAS, to show the emitter's changes cost no speed.  Results go to $OUT
# (default build/device-out); the log's tail is printed.  Under 4 minutes on an H200.
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
log="$out/coldc.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null | cut -c1-80)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1
    echo "CPU: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo "== build"
    make -j16 all tests 2>&1 | grep -E "error|warning" | head -20
    echo "== cold compile, phase by phase (this machine's CPU; three times each)"
    for i in 1 2 3; do build/cutec compile gemm --dtype bf16 --arch sm_90a --emit time 2>&1; done
    build/cutec compile gemm --dtype f32 --arch sm_90a --emit time 2>&1
    build/cutec compile elementwise --op add --dtype f16 --emit time 2>&1
    echo "== GPU tests"
    for t in backend/cuda_c_gpu_test backend/cuda_c_fold_test kernels/gemm/tensorop_test kernels/ew_apply_test kernels/elementwise_test; do
        [ -x build/tests/$t ] && timeout 120 build/tests/$t > "$out/$(basename $t).log" 2>&1
        echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
        grep -m 5 FAIL "$out/$(basename $t).log" | cut -c1-400
    done
    echo "== run gemm, beta != 0 (every element against float64)"
    for d in "bf16" "f16 --out-dtype f32" "f32"; do
        # shellcheck disable=SC2086
        build/cutec run gemm --dtype $d --m 1021 --n 509 --k 263 --beta 0.5 --layout tnt 2>&1 | tail -n 2
    done
    echo "== bench jit (a cold compile through the driver: trace, CUDA C, NVRTC, module load)"
    build/cutec bench jit 2>&1
    echo "== bench gemm bf16 tn and f32 nt at 4096 (against cuBLAS, same process)"
    build/cutec bench gemm --dtype bf16 --layout tn --sizes 4096 --iters 10 2>&1
    build/cutec bench gemm --dtype f32 --sizes 4096 --iters 10 --variants pipelined 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
