#!/bin/sh
# The lead's first pass of session 40, after the suite (about 60 s on one H200; log
# $OUT/lead40.log): issue 15's f16 8192x28672x4096, which read 94.2% of cuBLAS once in session
# 39 (bf16 99-102% there): f16 and bf16 in turns, two rounds, cuBLAS beside in each process;
# f16 8192x6144x4096 (99.8%) once.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead40: skipped: no GPU here"; exit 0; }
log="$out/lead40.log"
start=$(date +%s) budget=${BUDGET_S:-60}
{
    device_head
    for round in 1 2; do
        for d in f16 bf16; do
            device_late "$d 8192x28672x4096" && continue
            echo "-- round $round $d 8192x28672x4096 $(el_s)"
            timeout 25 build/cutec bench gemm --dtype $d --layout tnt --variants hopper --sizes 8192x28672x4096 \
                --iters 10 2>&1 | grep -E "^ *[0-9]|rror|WRONG|SM clock"
        done
    done
    device_late "f16 8192x6144x4096" || timeout 20 build/cutec bench gemm --dtype f16 --layout tnt --variants hopper \
        --sizes 8192x6144x4096 --iters 10 2>&1 | grep -E "^ *[0-9]|rror|WRONG|SM clock"
    device_end
} 2>&1 | tee "$log"
