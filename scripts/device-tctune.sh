#!/bin/sh
# The SM80 tensor-core GEMMs' tiling sweep (issue 13, engineer tctune): for bf16, f16, s8 and
# f64 (A and B K-major) each candidate tiling "BMxBNxBK:STAGES:WMxWN:RASTER[:READ_BYTES]" benched at
# 4096^3 (and the short list at 8192^3) against cuBLAS in the same process
# (`cutec bench gemm --variants tensorop_smem --tile ... --stages ... --warps ... --raster ...
# [--read-bytes 8|16]`: f64's fragment reads, LDS.128 (the default) or LDS.64),
# then the f64 kernel's ptxas report and main-loop instruction counts.  The winners go into
# the by_size table of src/kernels/gemm/lib.c (one row per dtype, sizes up to 4096^2) or,
# for every size, the dtype's row of tc_shapes in src/kernels/gemm/plan_multistage.c.
# Logs under $OUT (default build/device-out), tarred as tctune.tgz; a summary is printed.
# Candidates past BUDGET_S seconds (default 190) are skipped, so the pass ends within 4 minutes.
#   DTYPES="bf16 f64" ITERS=5 sh scripts/device-tctune.sh
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tctune: skipped: no GPU here"; exit 0; }
log="$out/tctune.log"
iters=${ITERS:-5}
# the first of each list is the library's default
c16="256x128x64:3:4x2:8 256x128x64:3:4x2:16 128x256x64:3:2x4:8 128x128x64:3:2x2:8 128x128x32:4:2x2:8"
c16_8192="256x128x64:3:4x2:8 128x256x64:3:2x4:8"
c8="256x128x128:3:4x2:8 128x256x128:3:2x4:8 128x128x128:3:2x2:8"
c8_8192="256x128x128:3:4x2:8 128x256x128:3:2x4:8"
c64="128x64x16:4:2x2:8 128x64x16:4:2x2:8:8 64x64x32:3:2x2:8 64x64x32:3:2x2:8:8 128x128x16:4:2x4:8 128x128x16:4:2x4:8:8"
c64_8192="128x64x16:4:2x2:8 128x64x16:4:2x2:8:8 64x64x32:3:2x2:8"

# bench one dtype at one size over its candidates, one line each
sweep()
{
    d=$1 n=$2
    shift 2
    for t in "$@"; do
        if [ $(($(date +%s) - start)) -gt "${BUDGET_S:-190}" ]; then
            echo "$d $n $t | skipped: past the time budget (BUDGET_S=${BUDGET_S:-190} s)"
            continue
        fi
        tile=${t%%:*} rest=${t#*:}
        st=${rest%%:*} rest=${rest#*:}
        w=${rest%%:*} rest=${rest#*:}
        r=${rest%%:*} rb=${rest#"$r"}
        rb=${rb#:}
        f="$out/bench-$d-$n-$(echo "$t" | tr ':' '_').log"
        build/cutec bench gemm --dtype "$d" --layout tn --sizes "$n" --iters "$iters" --variants tensorop_smem \
            --tile "$tile" --stages "$st" --warps "$w" --raster "$r" ${rb:+--read-bytes $rb} > "$f" 2>&1
        # "size variant ms TFLOP/s of-cuBLAS diff check": the kernel's row, then cuBLAS's ms and rate
        row=$(grep -m 1 -E "^$n +tensorop_smem" "$f")
        cub=$(grep -m 1 -E "^$n +cublas" "$f" | awk '{print $3, $4}')
        echo "$d $n $t | ${row:-no result: $(tail -n 1 "$f" | cut -c1-160)} | cublas $cub"
    done
}

start=$(date +%s)
{
    device_head
    echo "== build"
    make -j16 all build/tests/kernels/gemm/dmma_test build/tests/kernels/gemm/spill_test 2>&1 | grep -E "error|warning" | head -20
    echo "== dmma_test and spill_test (interpreter and NVRTC)"
    build/tests/kernels/gemm/dmma_test 2>&1 | tail -n 3
    build/tests/kernels/gemm/spill_test 2>&1 | tail -n 9
    for d in ${DTYPES:-f64 bf16 s8 f16}; do
        case $d in
            bf16|f16) all=$c16 big=$c16_8192 ;;
            s8) all=$c8 big=$c8_8192 ;;
            f64) all=$c64 big=$c64_8192 ;;
        esac
        echo "== $d tn: candidates (BMxBNxBK:stages:warps:raster) at 4096^3, then 8192^3"
        # shellcheck disable=SC2086
        sweep $d 4096 $all
        # shellcheck disable=SC2086
        sweep $d 8192 $big
    done
    echo "== f64 tn: ptxas and the main loop (default tiling, sm_90a)"
    CUTEC_ARCH=sm_90a build/cutec compile gemm --dtype f64 --layout tn --arch sm_90a --emit usage 2>&1 | grep -E "registers|spill"
    CUTEC_ARCH=sm_90a build/cutec compile gemm --dtype f64 --layout tn --arch sm_90a --emit sass > "$out/f64.sass" 2>/dev/null \
        && grep -oE "(DMMA|LDS|LDGSTS|STS)[.A-Z0-9_]*" "$out/f64.sass" | sort | uniq -c
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} > "$log" 2>&1
tar -czf "$out/tctune.tgz" -C "$out" $(cd "$out" && ls *.log) 2>/dev/null
tail -n 80 "$log"
