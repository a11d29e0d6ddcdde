#!/bin/sh
# Issue 13, engineer tc80: 8-bit GEMM operands that are M- or N-major now read their
# fragments by ldmatrix.trans of byte pairs and prmt (SM75_U8x16_LDSM_T_PRMT_A/B), where
# session 25 measured 210-376 TOPS (s8 nt/tt) against 955 for tn, their fragments read byte
# by byte.  This pass, within 4 minutes, highest value first (candidates past BUDGET_S
# seconds, default 170, are skipped):
#   1. `cutec run gemm` of s8 and e4m3 in nt, tt, nn at 1021x509x263 on the GPU (every
#      element against float64);
#   2. ptxas -O2 (a third of -O3's CPU time on the step-5 kernel, the same main-loop
#      instruction counts) against the default: the cold compile and bf16/s8 tn speed;
#   3. `cutec bench mma` (the mma.sync ceilings);
#   4. `cutec bench gemm --variants tensorop_smem` against cuBLAS(Lt) in the same process:
#      s8 in tn, nt, tt, nn at 4096 and 8192, e4m3 (C bf16) at 4096, bf16 tn at 4096 and 8192;
#   5. s8 tn and bf16 tn at 4096 over a few tilings (lib.c's by_size takes the winner);
#   6. in the time left: interp/inst_gpu_test (every instruction row against the
#      interpreter, prmt.b32 too) and atom_lane_test (every atom lane by lane, the two new
#      ones included) on the GPU.
# Logs under $OUT (default build/device-out), tarred as tc80.tgz.
#   ITERS=5 sh scripts/device-tc80.sh
. scripts/device-common.sh
log="$out/tc80.log"
iters=${ITERS:-5}
start=$(date +%s) budget=${BUDGET_S:-170}
late() { device_late "$@"; }
b() { device_bench_gemm "$@"; }

{
    device_head
    echo "== build"
    make -j16 build/cutec build/tests/atom/atom_lane_test build/tests/interp/inst_gpu_test 2>&1 |
        grep -E "error|warning" | head -20
    echo "== cutec run gemm (every element against float64)"
    for d in s8 e4m3; do
        for l in nt tt nn; do
            late run $d $l && continue
            echo "$d $l: $(timeout 60 build/cutec run gemm --dtype $d --layout $l --m 1021 --n 509 --k 263 2>&1 |
                grep -E "verified|rror|wrong" | head -2 | tr '\n' ' ')"
        done
    done
    echo "== ptxas -O2 against the default -O3 (CUTEC_NVRTC_OPTIONS; part of the cache key)"
    for o in "" "--ptxas-options=-O2"; do
        export CUTEC_NVRTC_OPTIONS="$o"
        echo "-- cold compile ${o:-(default)}: $(CUTEC_NO_CACHE=1 build/cutec compile gemm \
            --dtype bf16 --variant tensorop_smem --arch sm_90a --emit time 2>&1 | grep -E 'NVRTC to cubin|ptxas \(')"
        b --dtype bf16 --layout tn --sizes 4096,8192
        b --dtype s8 --layout tn --sizes 4096
    done
    unset CUTEC_NVRTC_OPTIONS
    echo "== bench mma"
    timeout 40 build/cutec bench mma --iters 3 2>&1 | tail -n 20
    echo "== bench gemm, tensorop_smem against cuBLAS"
    for l in nt tt nn tn; do b --dtype s8 --layout $l --sizes 4096,8192; done
    for l in nt tt nn tn; do b --dtype e4m3 --out-dtype bf16 --layout $l --sizes 4096; done
    b --dtype bf16 --layout tn --sizes 4096,8192
    echo "== tilings at 4096 (tn)"
    for t in "128x128x128 --stages 3 --warps 2x2 --raster 16" "128x256x128 --stages 3 --warps 2x4" \
             "128x128x64 --stages 4 --warps 2x2"; do
        b --dtype s8 --layout tn --sizes 4096 --tile $t
    done
    b --dtype bf16 --layout tn --sizes 4096 --tile 256x128x64 --stages 3 --warps 4x2 --raster 16
    # what is left of TOTAL_S (215) seconds, the tests on the GPU (they say how far they got)
    left=$((${TOTAL_S:-215} - ($(date +%s) - start)))
    [ $left -gt 10 ] && TEST_TIMEOUT=$((left / 2)) device_tests interp/inst_gpu_test atom/atom_lane_test
    echo "== done in $(($(date +%s) - start)) s"
} 2>&1 | tee "$log" | tail -n "${TAIL:-120}"
tar czf /tmp/tc80.tgz -C "$out" . && mv /tmp/tc80.tgz "$out/"
