#!/bin/sh
# Engineer s13: issue 13's s8 tn GEMM at 4096^3 (80% of the mma.sync ceiling: ~998 TOPS; AUTO
# 943 on 2026-11-27), the SM80 step-5 kernel.  Within 150 s on an H200; each step under its own
# timeout and started only inside the budget (BUDGET_S, default 125; a skipped step says so):
#   1. on the GPU against float64 (every element): the candidate tilings at odd sizes with
#      tails, alpha and beta; step 4's direct epilogue (variant tensorop);
#   2. `cutec bench mma --dtypes s8`: this run's s8 ceiling;
#   3. s8 tn 4096^3 beside cuBLAS in the same process: AUTO (128x128x128, 2x2 warps, 3 stages,
#      two blocks an SM) with step 5 and step 4 (C straight from the registers: no shared
#      round trip between the main loops), then each candidate tiling: 8 warps on 128x128
#      (two blocks an SM if ptxas keeps it under 128 registers), 128x256 and 256x128 (one
#      block an SM, 512 tiles), k-tiles of 64 in 3 and 4 stages, 128x128x128 in 4 stages;
#   4. AUTO (steps 5 and 4), 128x256x128 and 256x128x128 at K 128, 2048 and 8192 (the same
#      tiles: a round's fixed cost, C's stores and the prologue, apart from the main loop's rate);
#   5. e4m3 -> bf16 on the SM80 kernel (issue 13's row that printed nothing before its 12 s
#      limit on 2026-11-27): at 1024^3, then 4096^3 under 40 s, its compile time first.
# What it decides: a candidate at least 2% above AUTO at 4096^3 becomes the by_size row for s8
# up to 4096^2 (src/kernels/gemm/lib.c); none: AUTO stays.  Logs under $OUT.
. scripts/device-common.sh
log="$out/s13.log"
start=$(date +%s)
budget=${BUDGET_S:-125}
iters=${ITERS:-5}

# `cutec bench gemm --variants tensorop_smem` rows (device-common.sh) under T seconds
g()
{
    BENCH_TIMEOUT=$1 && shift
    device_bench_gemm "$@"
}

{
    device_begin
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "== no GPU here: every GPU step skipped"
        budget=-1
    fi
    echo "== 1. on the GPU against float64 (every element)"
    for args in "--variant tensorop_smem --tile 128x128x128 --warps 4x2 --stages 3 --layout tn --m 2049 --n 1030 --k 777 --alpha 3 --beta -2" \
        "--variant tensorop_smem --tile 128x256x128 --warps 2x4 --stages 3 --layout nt --m 1030 --n 2049 --k 263 --beta 1" \
        "--variant tensorop_smem --tile 128x128x64 --warps 2x2 --stages 4 --layout tn --m 1500 --n 777 --k 1000 --alpha -1 --beta 2" \
        "--variant tensorop --tile 128x128x128 --warps 2x2 --stages 3 --layout tn --m 2049 --n 1030 --k 777 --alpha 3 --beta -2"; do
        device_late run "$args" && continue
        # shellcheck disable=SC2086
        echo "run s8 $args: $(timeout 12 build/cutec run gemm --backend cuda --dtype s8 $args 2>&1 |
            grep -iE "verified|wrong|rror|fail" | head -2 | tr '\n' ' ')"
    done
    echo "== 2. at $(($(date +%s) - start)) s: bench mma s8 (this run's ceiling)"
    device_late mma || timeout 15 build/cutec bench mma --dtypes s8 --iters 3 2>&1 | grep -E "^s8|^#.*SM clock"
    echo "== 3. s8 tn 4096^3 (AUTO 128x128x128 2x2 3 stages: 943-948 before; 80% of 1,247.5 = 998)"
    g 20 --dtype s8 --layout tn --sizes 4096 --variants tensorop_smem,tensorop
    g 12 --dtype s8 --layout tn --sizes 4096 --tile 128x128x128 --warps 4x2 --stages 3
    g 12 --dtype s8 --layout tn --sizes 4096 --tile 128x256x128 --warps 2x4 --stages 3
    g 12 --dtype s8 --layout tn --sizes 4096 --tile 256x128x128 --warps 4x2 --stages 3 --raster 4,8
    g 12 --dtype s8 --layout tn --sizes 4096 --tile 128x128x64 --warps 2x2 --stages 4
    g 12 --dtype s8 --layout tn --sizes 4096 --tile 128x128x64 --warps 2x2 --stages 3
    g 12 --dtype s8 --layout tn --sizes 4096 --tile 128x128x128 --warps 2x2 --stages 4
    g 12 --dtype s8 --layout tn --sizes 4096 --tile 128x256x64 --warps 2x4 --stages 4
    g 12 --dtype s8 --layout tn --sizes 4096 --tile 128x128x64 --warps 4x2 --stages 4
    echo "== 4. at $(($(date +%s) - start)) s: the same 1,024 (512) tiles at K 128, 2048, 8192: time = a fixed cost a"
    echo "==    round + K x the main loop's rate (AUTO 0.0816 / 0.2750 ms at 2048 / 8192 before)"
    g 15 --dtype s8 --layout tn --sizes 4096x4096x128,4096x4096x2048,4096x4096x8192 --variants tensorop_smem,tensorop
    g 12 --dtype s8 --layout tn --sizes 4096x4096x128,4096x4096x2048,4096x4096x8192 --tile 128x256x128 --warps 2x4 --stages 3
    g 12 --dtype s8 --layout tn --sizes 4096x4096x128,4096x4096x2048,4096x4096x8192 --tile 256x128x128 --warps 4x2 --stages 3
    echo "== 5. at $(($(date +%s) - start)) s: e4m3 -> bf16 on the SM80 kernel"
    device_late e4m3 || echo "compile (sm_90a, cold): $(CUTEC_NO_CACHE=1 timeout 30 build/cutec compile gemm --dtype e4m3 \
        --out-dtype bf16 --variant tensorop_smem --layout tn --arch sm_90a --emit time 2>&1 | tr -s ' ' | tr '\n' ' ' |
        cut -c1-400)"
    for s in 1024 4096; do
        t0=$(date +%s)
        g 30 --dtype e4m3 --out-dtype bf16 --layout tn --sizes $s
        echo "-- e4m3 $s: $(($(date +%s) - t0)) s"
    done
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
