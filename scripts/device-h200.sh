#!/bin/sh
# The lead's H200 figures pass (issues 14, 15, 18, 19): the wgmma and mma.sync ceilings, the
# Hopper GEMM (bf16 at the shapes, e4m3) against cuBLAS/cuBLASLt, the Hopper attention
# forward at the shapes against SDPA, decode against SDPA and a copy, and the Python
# package's host overhead. Every benchmark runs its reference in the same process or call.
#   sh scripts/device-h200.sh        (logs in $OUT, default build/device-out)
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-h200: skipped: no GPU here"; exit 0; }
log="$out/h200.log"
stamp() { echo "== $(date -u +%T) $*"; }
gemm() { timeout 150 build/cutec bench gemm --layout tn --variants hopper --iters "$iters" "$@" 2>&1 |
    grep -E "^[0-9#]" | grep -v "^# \(index\|time\|check\)"; }
{
    device_begin
    stamp "bench mma: the mma.sync and wgmma ceilings"
    timeout 120 build/cutec bench mma --iters 5 2>&1 | tail -n 30
    stamp "bench gemm bf16, the issue's shapes"
    gemm --dtype bf16 --sizes 2048,4096,8192,8192x8192x1024,8192x28672x4096,8192x4096x14336,8192x6144x4096
    stamp "bench gemm e4m3 -> bf16 against cuBLASLt"
    gemm --dtype e4m3 --out-dtype bf16 --sizes 4096,8192
    stamp "bench gemm bf16 8192: the dual GEMM with SwiGLU"
    gemm --dtype bf16 --sizes 8192 --epilogue swiglu
    stamp "bench attention --variant hopper (SDPA in the same run)"
    timeout 100 build/cutec bench attention --variant hopper --iters 20 2>&1
    stamp "d128 2x16x16384, causal and not"
    for c in "" "--causal"; do
        # shellcheck disable=SC2086
        timeout 60 build/cutec bench attention --variant hopper --batch 2 --heads 16 --seqlen 16384 \
            --headdim 128 $c --iters 5 2>&1 | tail -n 3
    done
    stamp "d64 16x32x2048"
    timeout 60 build/cutec bench attention --variant hopper --batch 16 --heads 32 --seqlen 2048 \
        --headdim 64 --iters 10 2>&1 | tail -n 3
    stamp "d256 1x16x16384"
    timeout 70 build/cutec bench attention --variant hopper --batch 1 --heads 16 --seqlen 16384 \
        --headdim 256 --iters 5 2>&1 | tail -n 3
    stamp "backward d128 (SDPA's backward in the same run)"
    timeout 100 build/cutec bench attention --bwd --iters 5 2>&1 | tail -n 8
    stamp "decode (SDPA and a copy in the same run)"
    timeout 100 build/cutec bench attention --decode --iters 20 2>&1
    device_python
    stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n "${TAIL:-150}" "$log"
