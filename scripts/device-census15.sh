#!/bin/sh
# Issue 15's every GPU mark in one run (the lead, session 42), each `cutec bench gemm` row
# checked against float64 first (256 sampled elements) with its reference in the same process:
# bf16 and f16 at 2048^3, 4096^3, 8192^3 and 8192x8192x1024 beside cuBLAS (bf16 also as a share
# of the wgmma ceiling measured first, `--ceiling auto`), the LLM shapes 8192x28672x4096,
# 8192x4096x14336, 8192x6144x4096 (tnt); e4m3 per-tensor at 4096^3 and 8192^3 beside
# cuBLASLt and torch._scaled_mm; block-scaled at 4096x7168x16384; the epilogues' cost at 8192^3
# (bias, GELU) in turns with the plain GEMM; the dual GEMM with SwiGLU beside two cuBLAS calls
# and torch's silu(x) * y; grouped GEMM (8 and 64 groups) beside a loop of cuBLAS and
# torch._grouped_mm.  The marks: 105% / 108% / 100% of cuBLAS at 8192 / 4096 / 2048, 100% at
# the others; fp8 110% of torch._scaled_mm, block-scaled 1,450 TFLOP/s; epilogues under 3%.
# The bf16 and f16 rows time ours in turns with cuBLAS (`--turns`, session 43: the plain bench
# times cuBLAS alone first, and 8192^3 read 105.8% and 101.3% in two passes, 102.9% in turns in
# both; hop43 in bench/RESULTS.md); their row's "of cuBLAS" is against cuBLAS's
# median of the same turns, the "turns" line above it gives the rounds' least and largest.
# About 220 s on one H200; log $OUT/census15.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-census15: skipped: no GPU here"; exit 0; }
log="$out/census15.log"
start=$(date +%s) budget=${BUDGET_S:-220}
gemm15() # WHAT ARGS...: one bench's rows
{
    what=$1 && shift
    echo "-- $what $(el_s)"
    device_late "$what" || timeout 50 stdbuf -oL -eL build/cutec bench gemm --iters 20 "$@" 2>&1 |
        grep -E "^ *[0-9]|^cost|^turns|^# ceiling|torch|rror|WRONG|clock"
}
{
    device_head
    gemm15 "bf16 squares, of the wgmma ceiling, in turns with cuBLAS" --dtype bf16 --layout tn --variants hopper \
        --sizes 2048,4096,8192,8192x8192x1024 --ceiling auto --turns
    gemm15 "f16 squares, in turns" --dtype f16 --layout tn --variants hopper --sizes 2048,4096,8192,8192x8192x1024 --turns
    for d in bf16 f16; do
        gemm15 "$d LLM shapes, in turns" --dtype $d --layout tnt --variants hopper --turns \
            --sizes 8192x28672x4096,8192x4096x14336,8192x6144x4096
    done
    gemm15 "e4m3 per-tensor" --dtype e4m3 --out-dtype bf16 --layout tn --variants hopper --scale tensor --sizes 4096,8192
    gemm15 "e4m3 block-scaled" --dtype e4m3 --out-dtype bf16 --layout tn --variants hopper --scale block \
        --sizes 4096x7168x16384
    for e in bias gelu; do
        gemm15 "epilogue $e: cost at 8192^3" --dtype bf16 --layout tn --variants hopper --sizes 8192 --epilogue $e \
            --epilogue-cost
    done
    gemm15 "dual GEMM, SwiGLU" --dtype bf16 --layout tn --variants hopper --sizes 8192 --epilogue swiglu
    for g in 8 64; do
        gemm15 "grouped, $g groups" --dtype bf16 --groups $g --tokens 512 --sizes 4096
    done
    device_end
} 2>&1 | tee "$log"
