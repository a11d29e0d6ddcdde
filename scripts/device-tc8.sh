#!/bin/sh
# 8-bit operands that are not K-major (issue 13: "s8 and fp8 with M- or N-major operands
# still spill"): the SM80 tensor-core kernel's default tiling (256x128, 4x2 warps; s8 up to
# 4096^2 128x128x128, 2x2 warps) spills there, 128x128 tiles over 4x2 warps do not (ptxas,
# compile-only).  This pass benches both against cuBLAS(Lt) in one process, plus s8 tn with
# 4x2 warps (s8's 80% target), so lib.c's by_size table can take the winner.
# Logs under $OUT (default build/device-out), tarred as tc8.tgz.
#   ITERS=5 sh scripts/device-tc8.sh
. scripts/device-common.sh
log="$out/tc8.log"
iters=${ITERS:-5}
b()
{
    echo "-- $*"
    # shellcheck disable=SC2068
    build/cutec bench gemm --variants tensorop_smem --iters "$iters" $@ 2>&1 | grep -E "^[0-9]|rror|refus"
}
{
    device_begin
    for n in 4096 8192; do
        for l in nt tt tn; do
            b --dtype s8 --layout $l --sizes $n
            b --dtype s8 --layout $l --sizes $n --tile 128x128x128 --stages 3 --warps 4x2
            b --dtype s8 --layout $l --sizes $n --tile 128x128x64 --stages 4 --warps 4x2
        done
    done
    for l in nt nn; do
        b --dtype e4m3 --layout $l --sizes 4096
        b --dtype e4m3 --layout $l --sizes 4096 --tile 128x128x128 --stages 3 --warps 4x2
        b --dtype e4m3 --layout $l --sizes 4096 --tile 128x128x64 --stages 4 --warps 4x2
    done
} 2>&1 | tee "$log" | tail -n "${TAIL:-80}"
tar czf /tmp/tc8.tgz -C "$out" . && mv /tmp/tc8.tgz "$out/"
