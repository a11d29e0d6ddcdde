#!/bin/sh
# Tiling sweep of the tensor-core GEMM on a GPU: each TILINGS entry "BMxBNxBK:S:WMxWN" benched
# against cuBLAS (bench gemm, tensorop_smem) at $SIZES; the SASS of the default kernel into $OUT.
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
make -j16 all >/dev/null 2>&1 || { echo "build failed"; exit 1; }
d=${DTYPE:-bf16}
for t in ${TILINGS:-128x256x32:4:2x4}; do
    tile=${t%%:*}; rest=${t#*:}; st=${rest%%:*}; w=${rest#*:}
    echo "== $d tn $t"
    build/cutec bench gemm --dtype $d --layout ${LAYOUT:-tn} --sizes ${SIZES:-4096,8192} --iters ${ITERS:-10} \
        --variants tensorop_smem --tile $tile --stages $st --warps $w 2>&1 | grep -E "^[0-9]+ +(cublas|tensorop)"
done
CUTEC_ARCH=sm_90a build/cutec compile gemm --dtype $d --variant tensorop_smem --layout tn --emit cuda > "$out/k.cu" 2>/dev/null
nvcc -arch=sm_90a -cubin -Xptxas -v "$out/k.cu" -o "$out/k.cubin" 2>&1 | grep -E "registers|spill"
cuobjdump -sass "$out/k.cubin" > "$out/k.sass"
