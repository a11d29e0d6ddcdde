#!/bin/sh
# The closing pass: failures of the conversion and instruction tests in detail, cuBLAS's test,
# the mma.sync ceiling and every tensor-core dtype's GEMM against cuBLAS (step 5 only).
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-final: skipped: no GPU here"; exit 0; }
export PATH=$PATH:/usr/local/cuda/bin
make -j16 all tests 2>&1 | grep -E "error|warning" | head -20
for t in backend/narrow_cvt_test interp/inst_gpu_test cli/cublas_test; do
    timeout 200 build/tests/$t > "$out/$(basename $t).log" 2>&1
    echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
    grep -E "FAIL|wrong|differ" "$out/$(basename $t).log" | head -${DETAIL:-12} | cut -c1-400
done
build/cutec bench mma --iters 5 2>&1 | grep -vE "^#"
for d in bf16 f16 tf32 s8 "e4m3 --out-dtype bf16" f64; do
    echo "== $d"
    build/cutec bench gemm --dtype $d --layout tn --sizes 4096,8192 --iters 10 --variants tensorop,tensorop_smem 2>&1 | grep -E "^[0-9]+ +(cublas|tensorop)|clock"
done
