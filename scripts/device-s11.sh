#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# Engineer s11 (session 31): issue 13's s8 at 4096^3 (80% of the mma.sync ceiling), issue 18's
# SM80 attention with the lazy rescale as the default, and issue 13's tf32, e4m3 and f64 rows.
# Within 150 s on an H200; each step under its own timeout and started only while the run is
# inside its budget (BUDGET_S, default 128; a skipped step says so); output line-buffered:
#   1. the SM80 attention against float64 on the GPU: the lazy rescale (now the default) at
#      scale 40 (its move taken after the first tile), causal GQA, d64 f16; every tile
#      (CUTEC_ATTN_SM80_RESCALE=always) at scale 40; the persistent s8 GEMM, two blocks an SM
#      (128x128 tiles), every element against float64 (tails, alpha, beta);
#   2. `cutec bench mma`: this run's mma.sync ceilings (s8, bf16, tf32, e4m3, f64);
#   3. s8 tn 4096^3, cuBLAS (cublasGemmStridedBatchedEx, 32I) in the same process: 128x128x128
#      in 3 stages (AUTO's tiling) a block a tile and persistent (two blocks an SM, new), each
#      at raster 4, 8 and 16; 128x128x64 persistent (4 stages), two blocks an SM; torch._int_mm beside (bench/torch_int_mm.py);
#      the same tiles at K 2048, 8192 and 16384 (a round's fixed cost against the main loop's rate);
#   4. SM80 attention d128 8x16x4096 (SDPA beside): the lazy default, then every tile;
#   5. s8 8192^3: AUTO and the persistent 128x128x128; tf32, f64 and e4m3 (-> bf16) tn at
#      4096^3 on the SM80 kernel (issue 13's rows), as time allows.
# Logs under $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/s11.log"
start=$(date +%s)
budget=${BUDGET_S:-128}
iters=${ITERS:-5}
t128="--tile 128x128x128 --warps 2x2 --stages 3"

# `cutec bench gemm` on the SM80 step-5 kernel, under T seconds: its rows
g()
{
    t=$1 && shift
    device_late gemm "$@" && return
    echo "-- at $(($(date +%s) - start)) s: $*"
    # shellcheck disable=SC2068
    timeout "$t" stdbuf -oL -eL build/cutec bench gemm --variants tensorop_smem --iters "$iters" $@ 2>&1 |
        grep -v "^$"
}

# one check on the GPU (every element or row against float64), under T seconds: its verdict
r()
{
    t=$1 && shift
    device_late "$@" && return
    echo "$*: $(timeout "$t" "$@" 2>&1 | grep -iE "verified|wrong|checked|rror|fail" | head -3 | tr '\n' ' ')"
}

{
    device_head
    make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    sm80_gpu "; the compile-only checks follow"
    echo "== 1. on the GPU against float64"
    a="build/cutec run attention --variant sm80"
    # shellcheck disable=SC2086
    {
        r 10 $a --batch 2 --heads 4 --kv-heads 2 --seqlen 1500 --headdim 128 --scale 40
        r 10 $a --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal
        r 10 $a --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16
        r 10 env CUTEC_ATTN_SM80_RESCALE=always $a --batch 2 --heads 4 --seqlen 1500 --headdim 128 --scale 40 --causal
    }
    # shellcheck disable=SC2086
    r 15 build/cutec run gemm --backend cuda --variant tensorop_smem --schedule persistent $t128 --dtype s8 --layout tn \
        --m 2049 --n 1030 --k 777 --alpha 3 --beta -2
    echo "== 2. at $(($(date +%s) - start)) s: bench mma (this run's ceilings)"
    device_late mma || timeout 25 build/cutec bench mma --dtypes s8,bf16,tf32,e4m3,"f64 m16n8k16" --iters 3 2>&1 |
        grep -vE "^$"
    echo "== 3. s8 tn 4096^3 (AUTO: 128x128x128, 3 stages, a block a tile, raster 8; session 30: 943.7-948)"
    # shellcheck disable=SC2086
    g 30 --dtype s8 --layout tn --sizes 4096 $t128 --raster 4,8,16 --schedule auto,persistent
    g 15 --dtype s8 --layout tn --sizes 4096 --tile 128x128x64 --warps 2x2 --stages 4 --schedule persistent
    device_late torch || (cd bench && timeout 25 python3 torch_int_mm.py 4096x4096x4096 8192x8192x8192 2>&1)
    echo "-- the same 1,024 tiles at K 2048, 8192, 16384 (AUTO's tiling, a block a tile; then persistent): time ="
    echo "   a fixed cost a round plus K times the main loop's rate"
    # shellcheck disable=SC2086
    g 20 --dtype s8 --layout tn --sizes 4096x4096x2048,4096x4096x8192,4096x4096x16384 $t128 --schedule auto,persistent
    echo "== 4. at $(($(date +%s) - start)) s: SM80 attention d128 8x16x4096 (SDPA beside): lazy (the default), every tile"
    echo "==    (session 30: every tile 360.8-362.2, lazy 368.8-371.2)"
    for rs in lazy always; do
        device_late attention $rs && continue
        echo "-- $rs"
        # SDPA beside the first only (python3 reads an empty script for the second)
        sdpa=bench/torch_attention.py && [ $rs = always ] && sdpa=/dev/null
        CUTEC_TORCH_ATTENTION=$sdpa CUTEC_ATTN_SM80_RESCALE=$rs timeout 24 build/cutec bench attention --variant sm80 \
            --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters "$iters" 2>&1 | grep -vE "^$"
    done
    echo "== 5. at $(($(date +%s) - start)) s: s8 8192^3 (AUTO 256x128x128: 1,033.7), then issue 13's tf32, e4m3, f64"
    g 15 --dtype s8 --layout tn --sizes 8192
    # shellcheck disable=SC2086
    g 12 --dtype s8 --layout tn --sizes 8192 $t128 --schedule persistent
    g 12 --dtype tf32 --layout tn --sizes 4096
    g 12 --dtype f64 --layout tn --sizes 4096
    g 12 --dtype e4m3 --out-dtype bf16 --layout tn --sizes 4096
    echo "== at $(($(date +%s) - start)) s: ptxas (sm_90a): the persistent s8 128x128x128 (two blocks an SM), SM80 attention d128"
    # shellcheck disable=SC2086
    echo "persistent s8 128x128x128: $(timeout 20 build/cutec compile gemm --dtype s8 --variant tensorop_smem --layout tn \
        --schedule persistent $t128 --arch sm_90a --emit usage 2>&1 | grep -E "spill|Used" | tr -s ' ' | tr '\n' ' ')"
    for ca in "" --causal; do
        echo "attention d128 ${ca:-non-causal} (lazy): $(timeout 20 build/cutec compile attention --variant sm80 --headdim 128 $ca \
            --arch sm_90a --emit usage 2>&1 | grep -E "spill|Used" | tr -s ' ' | tr '\n' ' ')"
    done
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
