#!/bin/sh
# The GEMV pass of branch gemv4 on a GPU machine (issue 17), under 150 s on an H200: the
# instruction rows' GPU test first (prmt with a register selector, dp4a, prefetch.global.L2
# against the interpreter); NVFP4 (seed 001's (M,K,L); the byte decode, with the L2
# prefetch 1 and 2 k-tiles ahead and without) and bf16 GEMV (with and without) beside a
# device copy of the same bytes in the same process; torch.mv / torch.mm on the same shapes;
# the skinny products as GEMVs with 1..128 vectors (bf16; 32..128 also without the
# prefetch) and 1..64 (f32) beside the copy; the Hopper GEMM's small-M tiles against
# cuBLAS in one process; M = 64/128 with forced splits and the atomic reduction; the odd
# shapes through cutec_gemm.  Results in $OUT (default build/device-out); the log's tail is
# printed.  Past BUDGET_S (135) the remaining steps print "skipped".
. scripts/device-common.sh
log="$out/gemv4.log"
start=$(date +%s) budget=${BUDGET_S:-135}
R="stdbuf -oL -eL"
gemv() { # one `cutec bench gemv` row (or table), unless past the budget
    device_late gemv "$@" && return
    $R timeout 20 build/cutec bench gemv --iters 20 "$@" 2>&1 | grep -v "^#"
}
{
    device_begin
    TEST_TIMEOUT=30 device_tests interp/inst_gpu_test
    echo "== bench gemv nvfp4 (seed 001's (M,K,L); GB/s of what it must read): L2 prefetch 1 k-tile ahead (default), none, 2 ahead"
    gemv --dtype nvfp4
    gemv --dtype nvfp4 --l2-prefetch 0 | tail -n 3
    gemv --dtype nvfp4 --l2-prefetch 2 | tail -n 3
    echo "== bench gemv bf16: L2 prefetch 1 ahead (default), none"
    gemv --dtype bf16
    gemv --dtype bf16 --l2-prefetch 0 | tail -n 3
    echo "== torch.mv / torch.mm, same session"
    device_late torch || $R timeout 40 python3 bench/torch_gemv.py 2>&1
    echo "== skinny as GEMVs with vectors: 8192x8192 x N (GB/s of A + X + Y; copy: those bytes D2D)"
    for n in 1 8 16 32 64 128; do gemv --dtype bf16 --shape 8192x8192 --vectors $n | tail -n 1; done
    for n in 32 64 128; do gemv --dtype bf16 --shape 8192x8192 --vectors $n --l2-prefetch 0 | tail -n 1; done
    for n in 1 8 16 64; do gemv --dtype f32 --shape 8192x8192 --vectors $n | tail -n 1; done
    echo "== the Hopper GEMM's small-M tiles against cuBLAS (C = A B^T, A the tokens: M x 8192)"
    device_late hopper || $R timeout 40 build/cutec bench gemm --dtype bf16 --layout tn --variants hopper \
        --sizes 32x8192x8192,64x8192x8192,128x8192x8192 --tile 64x64x64,128x64x64 --iters 20 2>&1
    echo "== bf16 M = 64, 128: forced splits 1, 8 and the atomic reduction"
    for n in 64 128; do
        for sp in 1 8; do gemv --dtype bf16 --shape 8192x8192 --vectors $n --splits $sp | tail -n 1; done
        gemv --dtype bf16 --shape 8192x8192 --vectors $n --reduction atomic | tail -n 1
    done
    echo "== odd shapes through cutec_gemm (AUTO: the GEMV kernels)"
    for d in bf16 f32; do for s in "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
        device_late "$d $s" && continue
        echo "$d $s: $($R timeout 15 build/cutec run gemm --dtype $d --out-dtype $d --layout tn $s --iters 20 2>&1 | tail -n 1)"
    done; done
    echo "== registers and spills (ptxas, sm_90a)"
    for a in "nvfp4" "nvfp4 --l2-prefetch 0" "bf16" "bf16 --l2-prefetch 0" "bf16 --vectors 64 --splits 2"; do
        # shellcheck disable=SC2086
        echo "$a: $(build/cutec compile gemv --dtype $a --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    done
    echo "== clocks after ($(($(date +%s) - start)) s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 100 "$log"
