#!/bin/sh
# The GEMV pass of branch gemv7 on a GPU machine (issue 17), under 150 s on an H200.  First
# every changed form on the GPU at odd sizes against float64 (the bf16 ring of 4, now the
# library's, and f16's; the opt-in stream of row tiles, --row-tiles; NVFP4's six blocks an SM), then the
# benches, each row beside a device copy of the same bytes in the same process: bf16 through
# the library's ring of 4, with the stream of row tiles (--row-tiles auto: not measured yet;
# it decides whether the stream becomes the default or is deleted), and through registers
# (--smem-stages 0, the default before); f16 through registers (the library's) and the ring of 4
# (not measured yet: it decides f16's default); NVFP4 (the library's); the bf16 row sum (the
# read ceiling); torch.mv; the skinny GEMVs.  Results in $OUT (default build/device-out); the
# log's tail is printed.  Past BUDGET_S (140) the remaining steps print "skipped".
. scripts/device-common.sh
log="$out/gemv7.log"
start=$(date +%s) budget=${BUDGET_S:-140} GEMV_TIMEOUT=20
{
    device_begin
    echo "== on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype bf16 --shape 4099x8192 --batch 2
    device_gemv_run --dtype bf16 --shape 16385x4096 --row-tiles auto
    device_gemv_run --dtype f16 --shape 3000x6000 --batch 2 --smem-stages 4 --row-tiles auto
    device_gemv_run --dtype bf16 --shape 1001x4104 --row-tiles 3
    device_gemv_run --dtype f16 --shape 37x20000 --splits 3 --smem-stages 4 --row-tiles auto
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 3
    device_gemv_run --dtype nvfp4 --shape 261x4160 --batch 2
    echo "== bench gemv bf16: the library's (ring of 4), the stream of row tiles, registers (before), the stream again"
    device_gemv --dtype bf16
    device_gemv --dtype bf16 --row-tiles auto | tail -n 3
    device_gemv --dtype bf16 --smem-stages 0 | tail -n 3
    device_gemv --dtype bf16 --row-tiles auto | tail -n 3
    device_gemv --dtype f16 | tail -n 3
    device_gemv --dtype f16 --smem-stages 4 | tail -n 3
    echo "== bench gemv nvfp4 (six blocks an SM)"
    device_gemv --dtype nvfp4 | tail -n 3
    echo "== the bf16 row sum (a read-only stream: the ceiling)"
    device_late sum || timeout 15 build/cutec bench sum --dtype bf16 --iters 20 2>&1 | grep -v "^#"
    echo "== torch.mv bf16"
    device_late torch || stdbuf -oL -eL timeout 20 python3 bench/torch_gemv.py mv-bf16 2>&1
    echo "== skinny as GEMVs with vectors: 8192x8192 x N"
    for n in 8 16 64; do device_gemv --dtype bf16 --shape 8192x8192 --vectors $n | tail -n 1; done
    device_late usage || device_gemv_usage "nvfp4" "bf16" "bf16 --row-tiles 4" "bf16 --smem-stages 0"
    device_end
} >"$log" 2>&1
tail -n 100 "$log"
