#!/bin/sh
# The PTX backend's pass (branch ptxbe, issues 13 and 15) on a GPU machine, under 150 s on an
# H200.  CUTEC_CODEGEN=ptx compiles the IR straight to PTX and the driver's JIT linker
# (cuLinkCreate/AddData/Complete, -O3) assembles it: no NVRTC.  It is opt-in; this pass
# decides whether it becomes the default.
#  1. which library kernels the PTX backend says (else CUDA C, with the reason);
#  2. the CUDA C backend's GPU test on the PTX backend's module (every CVT pair bit for bit);
#     each library kernel on the GPU through the PTX path, cold (CUTEC_NO_CACHE), every element
#     against float64 (`cutec run`), the CUDA C path's line beside it with the same seed
#     (equal errors: the same bits, most likely);
#  3. the cold compile of the step-5 bf16 GEMM on this host's CPU, best of 5, both paths
#     interleaved: NVRTC (front end + NVVM + ptxas) against emit PTX + ptxas (the toolkit's
#     binary) and emit PTX + the driver's JIT (what a run does);
#  4. speed: the step-5 bf16 GEMM, elementwise add, RMSNorm and softmax through CUDA C,
#     then PTX, then CUDA C again (the speed must not drop; the rows kernels take more
#     registers through PTX: 95 against 76 for RMSNorm);
#  5. registers and spills of both paths (ptxas -v: through NVRTC, and the toolkit's binary).
# Decides: the PTX path checks everywhere, is no slower and compiles cold in less time ->
# make CUTEC_CODEGEN=ptx the default; else it stays opt-in (or goes, if wrong).
# Steps run in the order 1, 2, 4, 3, 5.  Past BUDGET_S (130) the remaining steps print
# "skipped" (without a GPU: the GPU steps at once; 3 and 5 need none).  Logs under $OUT.
. scripts/device-common.sh
log="$out/ptxbe.log"
start=$(date +%s) budget=${BUDGET_S:-130}
export CUDA_CACHE_DISABLE=1 # the driver's own PTX cache: every JIT here is cold
gpu=1
# true (and says so) without a GPU or past the budget
gpu_late() { [ "$gpu" = 0 ] && echo "-- skipped (no GPU): $*" && return 0; device_late "$@"; }

# a cold `cutec run` through the PTX path and through CUDA C, same seed: their last lines
check()
{
    gpu_late run "$@" && return
    echo "-- run $*"
    echo "   ptx:    $(CUTEC_NO_CACHE=1 CUTEC_CODEGEN=ptx timeout 30 build/cutec run "$@" --seed 7 2>&1 | tail -n 1)"
    echo "   cuda c: $(CUTEC_NO_CACHE=1 timeout 30 build/cutec run "$@" --seed 7 2>&1 | tail -n 1)"
}

# which generator `cutec compile ARGS` gets under CUTEC_CODEGEN=ptx
says()
{
    r=$(CUTEC_NO_CACHE=1 build/cutec compile "$@" --arch sm_90a --codegen ptx --emit time 2>&1 | grep -E "^PTX backend:|^emit PTX|^driver JIT" | cut -c1-160 | tr '\n' ' ')
    echo "$*: $r"
}

best_of() # file, phase: the CPU ms of the phase, best of the runs
{
    grep -F "$2" "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) { v = $i + 0; break }
                              if (min == "" || v < min) min = v } END { print min }'
}

{
    device_begin
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "-- no GPU here: the GPU steps are skipped"
        gpu=0
    fi
    echo "== 1. the library kernels the PTX backend says (sm_90a)"
    says elementwise --op add --dtype bf16
    says elementwise --op gelu --dtype bf16
    for d in bf16 tf32 s8 e4m3; do says gemm --variant tensorop_smem --dtype $d --layout tn; done
    says gemm --variant hopper --dtype bf16 --layout tn
    for k in softmax rmsnorm cross-entropy; do says $k --dtype bf16; done
    says attention --dtype bf16
    echo "== 2. on the GPU: the CUDA C backend's GPU test on the PTX backend's module (every CVT pair"
    echo "   on edge values, shuffles, laneid/warpid, the f16 add, shared pointers: bit for bit)"
    if gpu_late cuda_c_gpu_test; then :; else
        CUTEC_CODEGEN=ptx timeout 60 build/tests/backend/cuda_c_gpu_test >"$out/cuda_c_gpu_ptx.log" 2>&1
        echo "ptx: $(head -n 1 "$out/cuda_c_gpu_ptx.log" | cut -c1-120); $(tail -n 1 "$out/cuda_c_gpu_ptx.log")"
        grep -m 8 FAIL "$out/cuda_c_gpu_ptx.log" | cut -c1-300
    fi
    echo "== 2b. the library's kernels, cold, against float64: PTX path, then CUDA C (same seed)"
    check elementwise --op add --dtype bf16 --shape 1001x999
    check elementwise --op cast --dtype f32 --out-dtype bf16 --shape 1001x999
    for d in bf16 tf32 s8 e4m3; do check gemm --variant tensorop_smem --dtype $d --layout tn --m 1000 --n 1030 --k 520 --beta 0.5; done
    check gemm --variant hopper --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5
    for k in softmax rmsnorm layernorm; do check $k --dtype bf16 --shape 1000x4100; done
    echo "== 4. speed: CUDA C, PTX, CUDA C"
    for cg in cuda ptx cuda; do
        gpu_late bench gemm && break
        echo "-- ($cg)"
        CUTEC_CODEGEN=$cg device_bench_gemm --dtype bf16 --layout tn --sizes 4096,8192
    done
    for cg in cuda ptx cuda; do
        gpu_late bench elementwise && break
        echo "-- elementwise add bf16 ($cg)"
        CUTEC_CODEGEN=$cg timeout 20 build/cutec bench elementwise --op add --dtype bf16 --iters 20 2>&1 | grep -v "^#" | tail -n 4
    done
    for k in rmsnorm softmax; do
        for cg in cuda ptx cuda; do
            gpu_late bench $k && break
            echo "-- $k bf16 16384x4096 ($cg)"
            CUTEC_CODEGEN=$cg CUTEC_TORCH_ROWS=/dev/null timeout 20 build/cutec bench $k --dtype bf16 --shape 16384x4096 --iters 20 2>&1 | grep -v "^#" | tail -n 2
        done
    done
    echo "== 3. cold compile of the step-5 bf16 GEMM on this host, CPU ms, best of 5 (interleaved)"
    : >"$out/time-cuda.txt"; : >"$out/time-ptx.txt"
    for i in 1 2 3 4 5; do
        device_late cold compile round $i && break
        CUTEC_NO_CACHE=1 build/cutec compile gemm --dtype bf16 --variant tensorop_smem --arch sm_90a --emit time >>"$out/time-cuda.txt" 2>&1
        CUTEC_NO_CACHE=1 build/cutec compile gemm --dtype bf16 --variant tensorop_smem --arch sm_90a --codegen ptx --emit time >>"$out/time-ptx.txt" 2>&1
    done
    echo "CPU: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo "cuda c: trace $(best_of "$out/time-cuda.txt" "trace (") + emit $(best_of "$out/time-cuda.txt" "emit CUDA C") + NVRTC to cubin $(best_of "$out/time-cuda.txt" "NVRTC to cubin") (to PTX $(best_of "$out/time-cuda.txt" "NVRTC to PTX"))"
    echo "ptx:    trace $(best_of "$out/time-ptx.txt" "trace (") + emit $(best_of "$out/time-ptx.txt" "emit PTX") + ptxas binary $(best_of "$out/time-ptx.txt" "ptxas (PTX to cubin)") | driver JIT $(best_of "$out/time-ptx.txt" "driver JIT (PTX") (cpu; wall: see log)"
    tail -n 8 "$out/time-ptx.txt"
    echo "== 5. registers and spills, sm_90a: NVRTC's ptxas | the PTX backend's (toolkit ptxas)"
    for d in bf16 tf32 s8 e4m3; do
        device_late registers && break
        echo "$d: $(build/cutec compile gemm --variant tensorop_smem --dtype $d --layout tn --arch sm_90a --emit usage 2>&1 | grep -E 'Used|spill stores' | tr -s ' ' | tr '\n' ' ') | $(build/cutec compile gemm --variant tensorop_smem --dtype $d --layout tn --arch sm_90a --codegen ptx --emit usage 2>&1 | grep -E 'Used|spill stores' | tr -s ' ' | tr '\n' ' ')"
    done
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 120
