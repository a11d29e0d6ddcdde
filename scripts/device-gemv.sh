#!/bin/sh
# The GEMV pass on a GPU machine (issue 17): build, the GEMV test, `cutec bench gemv` for
# bf16 / f16 / f32 / e4m3 (row-major A) and bf16 column-major A, each with a device copy
# of the same bytes in the same process, and torch.mv on the same shapes in the same
# session.  Results go to $OUT (default build/device-out); the log's tail is printed.
# Under 4 minutes on an H200.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-gemv: skipped: no GPU here"; exit 0; }
log="$out/gemv.log"
{
    device_begin
    echo "== gemv test (interpreter and PTX checks)"
    timeout 120 build/tests/kernels/gemv/gemv_test 2>&1 | tail -n 5
    echo "== run gemv on the GPU: odd sizes, batches, split-K, against float64"
    for a in "--dtype bf16 --shape 1021x4099 --batch 3" "--dtype f32 --shape 5x100000" \
             "--dtype f16 --shape 4097x8191 --layout cols" "--dtype e4m3 --shape 777x3000" \
             "--dtype bf16 --shape 3x8192 --splits 8" "--dtype nvfp4 --shape 1000x4128 --batch 2" \
             "--dtype mxfp8 --shape 515x2080"; do
        # shellcheck disable=SC2086
        timeout 60 build/cutec run gemv $a 2>&1 | tail -n 2
    done
    for d in bf16 f16 f32 e4m3; do
        echo "== bench gemv $d rows (K-major A)"
        timeout 60 build/cutec bench gemv --dtype $d --iters 20 2>&1
    done
    echo "== bench gemv nvfp4 and mxfp8 (seed 001's shapes (M,K,L); GB/s of the codes, scales, x, y)"
    timeout 60 build/cutec bench gemv --dtype nvfp4 --iters 20 2>&1
    timeout 60 build/cutec bench gemv --dtype mxfp8 --iters 20 2>&1
    echo "== bench gemv bf16 cols (M-major A)"
    timeout 60 build/cutec bench gemv --dtype bf16 --layout cols --iters 20 2>&1
    echo "== skinny GEMM through the GEMV kernels: C(M,8192) = A(M,8192) B(8192,8192)^T as N vectors"
    for d in bf16 f32; do for v in 1 8; do
        timeout 60 build/cutec bench gemv --dtype $d --shape 8192x8192 --vectors $v --iters 20 2>&1 | tail -n 1
    done; done
    timeout 60 build/cutec bench gemv --dtype bf16 --shape 4097x8191 --vectors 3 --iters 20 2>&1 | tail -n 1
    timeout 60 build/cutec bench gemv --dtype bf16 --shape 5x100000 --vectors 3 --iters 20 2>&1 | tail -n 1
    echo "== split-K's atomic (non-deterministic) reduction beside the ordered one"
    for r in ordered atomic; do
        timeout 60 build/cutec bench gemv --dtype bf16 --shape 64x65536 --reduction $r --iters 20 2>&1 | tail -n 1
        timeout 60 build/cutec bench gemv --dtype f32 --shape 5x100000 --vectors 3 --reduction $r --iters 20 2>&1 | tail -n 1
    done
    echo "== cutec run gemm on skinny shapes (AUTO routes them to the GEMV kernels; checked against float64)"
    for s in "--m 1 --n 8192 --k 8192" "--m 8 --n 8192 --k 8192" "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
        # shellcheck disable=SC2086
        timeout 60 build/cutec run gemm --dtype bf16 --out-dtype bf16 --layout tn $s --iters 20 2>&1 | tail -n 1
    done
    echo "== torch.mv, same session"
    timeout 120 python3 bench/torch_gemv.py 2>&1
    echo "== registers and spills (ptxas -v)"
    for d in "bf16 --layout cols" "f32 --layout cols" "e4m3" "mxfp8" "nvfp4" "f32" "bf16"; do
        # shellcheck disable=SC2086
        CUTEC_ARCH=sm_90a build/cutec compile gemv --dtype $d --emit cuda > "$out/g.cu" 2>/dev/null
        nvcc -arch=sm_90a -cubin -Xptxas -v "$out/g.cu" -o "$out/g.cubin" 2>&1 | grep -E "registers|spill" | tr '\n' ' '
        echo " <- $d"
    done
    echo "(the last, bf16 rows: its global loads)"
    cuobjdump -sass "$out/g.cubin" 2>/dev/null | grep -oE "LDG[.A-Z0-9_]*" | sort | uniq -c
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
