#!/bin/sh
# The lead's mid pass of session 39 (about 30 s on one H200; log $OUT/lead39b.log): issue 15's f16
# rows never timed (2048^3, 8192x8192x1024, the three LLM shapes), cuBLAS beside and the wgmma
# ceiling column (`--ceiling auto`), the SM clock line (now read from NVML: tidy39) printed by the bench.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead39b: skipped: no GPU here"; exit 0; }
log="$out/lead39b.log"
start=$(date +%s) budget=${BUDGET_S:-30}
{
    device_head
    device_late "f16" || timeout 40 build/cutec bench gemm --dtype f16 --layout tn --variants hopper --iters 20 --ceiling auto \
        --sizes 2048,8192x8192x1024,8192x28672x4096,8192x4096x14336,8192x6144x4096 2>&1 | grep -E "^(2048|8192) |SM clock|ceiling"
    device_end
} 2>&1 | tee "$log"
