#!/bin/sh
# Issue 17's every mark in one run (the lead, session 40): bf16 GEMV at 8192x8192, 16384x4096,
# 4096x16384; the skinny GEMMs (8192x8192 with 1, 8, 16, 64 vectors, 4097x8191 with 3, 5x100000
# with 3; bf16 and f32); NVFP4 (7168x16384 L=1, 4096x7168 L=8, 7168x2048 L=4); torch.mv and
# torch.mm on the same shapes (bench/torch_gemv.py) in the same session.  Each cutec bench row
# checks y against float64 first and gives % of a device copy of the same bytes.  About 120 s on
# one H200; log $OUT/census17.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-census17: skipped: no GPU here"; exit 0; }
log="$out/census17.log"
start=$(date +%s) budget=${BUDGET_S:-140}
{
    device_head
    echo "== GEMV bf16 (the three shapes) $(el_s)"
    device_gemv --dtype bf16
    echo "== torch.mv / torch.mm $(el_s)"
    device_late torch || timeout 60 python3 bench/torch_gemv.py 2>&1
    for d in bf16 f32; do
        echo "== skinny $d $(el_s)"
        for n in 1 8 16 64; do device_gemv --dtype $d --shape 8192x8192 --vectors $n | tail -n 1; done
        device_gemv --dtype $d --shape 4097x8191 --vectors 3 | tail -n 1
        device_gemv --dtype $d --shape 5x100000 --vectors 3 | tail -n 1
    done
    echo "== NVFP4 $(el_s)"
    device_gemv --dtype nvfp4 --shape 7168x16384 | tail -n 1
    device_gemv --dtype nvfp4 --shape 4096x7168 --batch 8 | tail -n 1
    device_gemv --dtype nvfp4 --shape 7168x2048 --batch 4 | tail -n 1
    device_end
} 2>&1 | tee "$log"
