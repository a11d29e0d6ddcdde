#!/bin/sh
# The wgmma pass on a GPU machine (issue 14 item 5): build; the wgmma lane test (every dtype,
# SS and RS, K- and MN-major tiles, each thread's accumulators against float64), the
# instruction and atom tests, the wgmma peak kernel's test; the wgmma ceiling beside the
# mma.sync rows (`cutec bench mma`); registers/spills and SASS of the bf16 peak kernel.
# Results go to $OUT (default build/device-out); the log's tail is printed.  About 2 minutes
# on an H200.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-wgmma: skipped: no GPU here"; exit 0; }
log="$out/wgmma.log"
{
    device_begin
    echo "== tests on the GPU"
    for t in atom/wgmma_test kernels/wgmma_peak_test atom/gmma_desc_test backend/cuda_c_inst_test interp/inst_gpu_test atom/atom_lane_test; do
        [ -x build/tests/$t ] && timeout 240 build/tests/$t > "$out/$(basename $t).log" 2>&1
        echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
        grep -m 8 FAIL "$out/$(basename $t).log" | cut -c1-400
    done
    echo "== bench mma: the mma.sync and wgmma ceilings"
    build/cutec bench mma --dtypes bf16,e4m3,wgmma --iters 5 2>&1
    echo "== registers and SASS of the wgmma bf16 peak kernel"
    rm -rf "$out/cache"
    CUTEC_KEEP=src,cubin,sass CUTEC_CACHE_DIR="$out/cache" build/cutec bench mma --dtypes "wgmma bf16" --iters 1 >/dev/null 2>&1
    for f in $(find "$out/cache" -name '*.cu'); do
        [ -f "$f" ] || continue
        nvcc -arch=sm_90a -cubin -Xptxas -v "$f" -o "$out/k.cubin" 2>&1 | grep -E "registers|spill" | tr '\n' ' '
        echo " <- $(basename "$f")"
        cuobjdump -sass "$out/k.cubin" | grep -oE "(HGMMA|WARPGROUP|LDS|STS|BAR)[.A-Z0-9_x]*" | sort | uniq -c | head -20
    done
    rm -rf "$out/cache" "$out/k.cubin"
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -n 80 "$log"
