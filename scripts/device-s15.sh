#!/bin/sh
# Engineer s15: the SM80 GEMM's persistent schedule two blocks an SM (issue 13's s8 tn 4096^3
# toward 80% of the mma.sync ceiling; AUTO, a block a tile, 943-950 TOPS = 75.5%).
# `--schedule persistent` on tensorop_smem (multistage.c's persistent_kernel): a grid of the
# resident blocks (two an SM at 2x2 warps: 264 on an H200) walking the tiles in the raster
# band order of a block a tile; each block issues its next tile's first two k-tiles before its
# epilogue, whose C tile (two parts of 32 KB at s8 128x128x128) lies over the last stage, A's
# and B's stages interleaved: 96 KB a block, a block a tile's.  Under 90 s on one H200 after
# the lead's `make all tests` (BUDGET_S, default 75: a step past it prints "skipped").  Logs
# under $OUT.
#   1. on the GPU against float64 FIRST (every element): s8 persistent two an SM (340 tiles
#      on 264 blocks, K tails, alpha, beta; nt), bf16 persistent at its default 256x128 (one
#      an SM, C whole from the last stage on) and at 128x128x64 (two an SM);
#   2. `cutec bench mma --dtypes s8`: this run's ceiling;
#   3. s8 tn 4096^3, AUTO's tiling (128x128x128, 2x2, 3 stages) a block a tile (-auto) and
#      persistent (-persistent), beside cuBLAS in one process, twice, each with step 5's runs
#      of C out of shared memory in a loop (the default) and unrolled (CUTEC_GEMM_SM80_RUNS=
#      unrolled: straight-line code, every run's read issued before the stores); step 4 (C from the
#      registers, no C tile) both ways; then 2x4 warps in 4 stages (256 threads, one block
#      an SM), 128x256x128 and 128x128x128, both ways;
#   4. s8 tn 8192^3: the library's AUTO (256x128x128), then 128x128x128 auto / persistent,
#      runs in a loop and unrolled;
#   5. the K sweep 4096x4096xK (K 2048, 8192): a round's fixed cost against the main loop's
#      rate, a block a tile and persistent;
#   6. bf16 tn 4096^3 on the SM80 kernel: its default 256x128 and 128x128x64 (2x2, 3 stages: two an SM),
#      auto / persistent (sm_90 runs bf16 on the Hopper kernel: for the record);
#   7. ptxas sm_90a: registers and spills of the s8 and bf16 persistent kernels.
# The rules ("decides:" lines): runs unrolled at least 1% faster than in a loop for AUTO's
# tiling in BOTH 4096^3 pairs -> unrolled by default for s8 (plan_multistage.c `static const
# bool s8_runs_unrolled = false;` -> true; fp8 spills unrolled); then, with the runs' form so decided, persistent
# 128x128x128 at least 1% faster than AUTO in BOTH 4096^3 pairs -> the library takes it for s8
# (src/kernels/gemm/lib.c `static const int64_t s8_persistent_up_to = 0;` -> 4096LL * 4096),
# and if also 1% faster than the library's AUTO (256x128x128) at 8192^3, at every size
# (-> INT64_MAX); else it stays opt-in (--schedule persistent).  bf16 stays opt-in (the
# Hopper kernel runs bf16 on sm_90).
. scripts/device-common.sh
log="$out/s15.log"
start=$(date +%s)
budget=${BUDGET_S:-75}
iters=${ITERS:-10}
T128="--tile 128x128x128 --warps 2x2 --stages 3"

{
    device_begin
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "== no GPU here: every GPU step skipped"
        budget=-1
    fi
    echo "== 1. the persistent kernel on the GPU against float64 (every element)"
    for args in "--dtype s8 $T128 --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" \
        "--dtype s8 $T128 --layout nt --m 2560 --n 2049 --k 263 --beta 1" \
        "--dtype bf16 --layout tn --m 2049 --n 2560 --k 263 --alpha 1.5 --beta -0.5" \
        "--dtype bf16 --tile 128x128x64 --warps 2x2 --stages 3 --layout nt --m 1030 --n 2049 --k 300 --beta 1"; do
        device_late run "$args" && continue
        # shellcheck disable=SC2086
        echo "run $args: $(timeout 15 build/cutec run gemm --backend cuda --variant tensorop_smem --schedule persistent \
            $args 2>&1 | grep -iE "verified|wrong|rror|fail" | head -2 | tr '\n' ' ')"
    done
    echo "== 2. at $(($(date +%s) - start)) s: bench mma s8 (this run's ceiling; 1,247.5-1,255.1 before)"
    device_late mma || timeout 15 build/cutec bench mma --dtypes s8 --iters 3 2>&1 | grep -E "^s8"
    echo "== 3. s8 tn 4096^3: AUTO's tiling a block a tile (-auto) and persistent (-persistent), C's runs in a loop"
    echo "   and unrolled (CUTEC_GEMM_SM80_RUNS=unrolled, u), twice"
    for i in 1 2; do
        BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 4096 --schedule auto,persistent $T128 \
            >"$out/s15-4096-$i.txt"
        CUTEC_GEMM_SM80_RUNS=unrolled BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 4096 \
            --schedule auto,persistent $T128 >"$out/s15-4096-u$i.txt"
        cat "$out/s15-4096-$i.txt"
        echo "u:" && cat "$out/s15-4096-u$i.txt"
    done
    echo "-- step 4 (C stored from the registers, no C tile: the persistent kernel two an SM with 3 stages)"
    device_late step4 || timeout 20 build/cutec bench gemm --variants tensorop --iters "$iters" --dtype s8 --layout tn \
        --sizes 4096 --schedule auto,persistent $T128 2>&1 | grep -E "^ *[0-9]|rror|refus"
    echo "-- 2x4 warps (256 threads, one block an SM) in 4 stages: 128x256x128, then 128x128x128"
    for t in 128x256x128 128x128x128; do
        BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 4096 --schedule auto,persistent \
            --tile $t --warps 2x4 --stages 4
    done
    echo "== 4. at $(($(date +%s) - start)) s: s8 tn 8192^3: the library's AUTO, then 128x128x128 auto / persistent;"
    echo "   loop, then unrolled (u)"
    BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 8192 >"$out/s15-8192-auto.txt"
    BENCH_TIMEOUT=25 device_bench_gemm --dtype s8 --layout tn --sizes 8192 --schedule auto,persistent $T128 \
        >"$out/s15-8192-p.txt"
    CUTEC_GEMM_SM80_RUNS=unrolled BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 8192 \
        >"$out/s15-8192-uauto.txt"
    CUTEC_GEMM_SM80_RUNS=unrolled BENCH_TIMEOUT=25 device_bench_gemm --dtype s8 --layout tn --sizes 8192 \
        --schedule auto,persistent $T128 >"$out/s15-8192-up.txt"
    cat "$out/s15-8192-auto.txt" "$out/s15-8192-p.txt"
    echo "u:" && cat "$out/s15-8192-uauto.txt" "$out/s15-8192-up.txt"
    echo "== 5. at $(($(date +%s) - start)) s: the K sweep, 4096x4096xK (K 2048 / 8192)"
    BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 4096x4096x2048,4096x4096x8192 \
        --schedule auto,persistent $T128
    echo "== 6. at $(($(date +%s) - start)) s: bf16 tn 4096^3 on the SM80 kernel: default tiling, 128x128x64"
    BENCH_TIMEOUT=20 device_bench_gemm --dtype bf16 --layout tn --sizes 4096 --schedule auto,persistent
    BENCH_TIMEOUT=20 device_bench_gemm --dtype bf16 --layout tn --sizes 4096 --schedule auto,persistent \
        --tile 128x128x64 --warps 2x2 --stages 3
    echo "== 7. ptxas sm_90a: the persistent kernels"
    echo "s8 AUTO's tiling a block a tile, runs unrolled: $(CUTEC_GEMM_SM80_RUNS=unrolled CUTEC_NO_CACHE=1 timeout 10 \
        build/cutec compile gemm --variant tensorop_smem --layout tn --arch sm_90a --dtype s8 $T128 --emit usage 2>&1 |
        grep -E 'registers|spill|rror' | tr '\n' ' ')"
    for args in "--dtype s8 $T128" "--dtype s8 --tile 128x256x128 --warps 2x4 --stages 4" "--dtype bf16" \
        "--dtype bf16 --tile 128x128x64 --warps 2x2 --stages 3"; do
        # shellcheck disable=SC2086
        echo "$args: $(CUTEC_NO_CACHE=1 timeout 10 build/cutec compile gemm --variant tensorop_smem --layout tn \
            --arch sm_90a --schedule persistent $args --emit usage 2>&1 | grep -E 'registers|spill|rror' | tr '\n' ' ')"
    done

    echo "== decisions"
    # lead LABEL FILE_A PAT_A FILE_B PAT_B: prints both figures, adds 1 to $won when B is 1% ahead of A
    won=0
    lead()
    {
        x=$(bench_tops "$2" "$3") y=$(bench_tops "$4" "$5")
        echo "$1: ${x:-none} against ${y:-none} TOPS"
        won=$((won + $(bench_atleast "$y" "$x" 1.01)))
    }
    # C's runs: unrolled at least 1% faster than the loop for AUTO's tiling in both 4096^3 pairs
    for i in 1 2; do
        lead "4096^3 pair $i, a block a tile: runs in a loop, unrolled" "$out/s15-4096-$i.txt" -auto \
            "$out/s15-4096-u$i.txt" -auto
    done
    f= r=loop
    if [ "$won" -eq 2 ]; then
        f=u r=unrolled
        echo "decides: s8's C runs unrolled by default (plan_multistage.c: s8_runs_unrolled = true)"
    else
        echo "decides: C's runs stay a loop (CUTEC_GEMM_SM80_RUNS=unrolled opt-in; not 1% ahead in both pairs)"
    fi
    # persistent against AUTO, each with the runs' form just decided: 4096^3 (both pairs), 8192^3
    won=0
    for i in 1 2; do
        lead "4096^3 pair $i ($r): AUTO, persistent" "$out/s15-4096-$f$i.txt" -auto "$out/s15-4096-$f$i.txt" -persistent
    done
    w4=$won won=0
    lead "8192^3 ($r): the library's AUTO, persistent 128x128x128" "$out/s15-8192-${f}auto.txt" tensorop_smem \
        "$out/s15-8192-${f}p.txt" -persistent
    if [ "$w4" -eq 2 ] && [ "$won" -eq 1 ]; then
        echo "decides: s8 persistent is the library's at every size (lib.c: s8_persistent_up_to = INT64_MAX)"
    elif [ "$w4" -eq 2 ]; then
        echo "decides: s8 persistent is the library's up to 4096^2 (lib.c: s8_persistent_up_to = 4096LL * 4096)"
    else
        echo "decides: s8 persistent stays opt-in (--schedule persistent; not 1% ahead in both 4096^3 pairs)"
    fi
    echo "decides: bf16 persistent stays opt-in (sm_90 runs bf16 on the Hopper kernel)"
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
