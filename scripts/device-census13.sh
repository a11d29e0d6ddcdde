#!/bin/sh
# Issue 13's every GPU mark in one run (the lead, session 42): this card's mma.sync ceilings
# (`cutec bench mma`), then the SM80 instruction GEMM (`--variants tensorop_smem`, seed 000's
# step 5 and its library) for bf16, f16, tf32, s8, e4m3 -> bf16 and f64 at 4096^3 and 8192^3,
# tn, beside cuBLAS (cuBLASLt for fp8) in the same process, each row checked against float64
# first (256 sampled elements); torch._int_mm beside s8 where torch is.  The marks: 80% of each
# dtype's mma.sync ceiling, bf16 and f16 65% of cuBLAS, f64 90% of cuBLAS's DGEMM.  About 150 s
# on one H200; log $OUT/census13.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-census13: skipped: no GPU here"; exit 0; }
log="$out/census13.log"
start=$(date +%s) budget=${BUDGET_S:-150}
gemm13() # DTYPE ARGS...: the SM80 GEMM and cuBLAS at 4096^3 and 8192^3
{
    echo "-- $1 $(el_s)"
    device_late "$1" || timeout 40 stdbuf -oL -eL build/cutec bench gemm --dtype "$@" --layout tn \
        --variants tensorop_smem --sizes 4096,8192 --iters 10 2>&1 | grep -E "^ *[0-9]|rror|WRONG|clock"
}
{
    device_head
    echo "== the mma.sync ceilings $(el_s)"
    device_late mma || timeout 60 build/cutec bench mma --iters 5 2>&1 | grep -vE "^# (index|check)"
    gemm13 bf16
    gemm13 f16
    gemm13 tf32
    gemm13 s8
    gemm13 e4m3 --out-dtype bf16
    gemm13 f64
    echo "-- torch._int_mm $(el_s)"
    device_late int_mm || timeout 40 python3 bench/torch_int_mm.py 4096x4096x4096 8192x8192x8192 2>&1 | tail -n 3
    device_end
} 2>&1 | tee "$log"
