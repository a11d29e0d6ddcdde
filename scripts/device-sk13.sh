#!/bin/sh
# Engineer sk13: stream-K for the SM80 GEMM (issue 13's s8 tn 4096^3 at 80% of the mma.sync
# ceiling; AUTO 948-950 TOPS = 75.5%).  `--schedule streamk` on tensorop / tensorop_smem
# (multistage.c's streamk_kernel): a grid of the resident blocks (two an SM at 2x2 warps), each
# one contiguous run of the (tile, k-tile) iterations of every tile, partials in s32 / f32 in a
# workspace, summed by the block that ends the tile.  Under 80 s on one H200 after the lead's
# `make all tests` (BUDGET_S, default 70: a step past it prints "skipped").  Logs under $OUT.
#   1. on the GPU against float64 FIRST (every element): s8 with runs (340 tiles on 264
#      blocks, K tails, alpha, beta), bf16 256x128 (180 tiles on 132);
#   2. `cutec bench mma --dtypes s8`: this run's ceiling;
#   3. s8 tn 4096^3, AUTO's tiling (128x128x128, 2x2, 3 stages) as a block a tile and as
#      stream-K, beside cuBLAS in one process, twice;
#   4. s8 tn 8192^3: the library's AUTO (plan default) beside stream-K 128x128x128, cuBLAS;
#   5. bf16 tn 4096^3 on the SM80 kernel, auto and stream-K (sm_90 runs bf16 on the Hopper
#      kernel: for the record);
#   6. streamk_sm80_test's GPU cases (4096^3 sampled, odd sizes), if the budget allows.
# The rules ("decides:" lines):
#   s8:   stream-K at least 2% faster than AUTO in BOTH 4096^3 pairs -> the library takes it:
#         src/kernels/gemm/lib.c `static const bool s8_streamk = false;` -> true (by_size's s8
#         row, M N <= 4096^2, unbatched, no fused epilogue); else it stays opt-in.
#   8192: stream-K 128x128x128 at least 2% faster than the library's AUTO at 8192^3 -> by_size's
#         s8 row to every size (its up_to 4096LL * 4096 -> INT64_MAX, with the flip above);
#         else the library keeps its 8192 tiling.
#   bf16: stays opt-in (the Hopper kernel runs bf16 on sm_90); its figure is for the record.
. scripts/device-common.sh
log="$out/sk13.log"
start=$(date +%s)
budget=${BUDGET_S:-70}
iters=${ITERS:-10}
SK="--tile 128x128x128 --warps 2x2 --stages 3"


{
    device_begin
    sm80_gpu
    echo "== 1. stream-K on the GPU against float64 (every element)"
    for args in "--dtype s8 $SK --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" \
        "--dtype s8 $SK --layout nt --m 2560 --n 2049 --k 263 --beta 1" \
        "--dtype bf16 --layout tn --m 2049 --n 2560 --k 263 --alpha 1.5 --beta -0.5"; do
        # shellcheck disable=SC2086
        sm80_check "$args" 15 build/cutec run gemm --backend cuda --variant tensorop_smem --schedule streamk $args
    done
    echo "== 2. at $(($(date +%s) - start)) s: bench mma s8 (this run's ceiling; 1,255.1 at session 32's mid pass)"
    sm80_mma
    echo "== 3. s8 tn 4096^3: AUTO's tiling a block a tile (-auto) and stream-K (-sk), twice"
    for i in 1 2; do
        BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 4096 --schedule auto,streamk $SK >"$out/sk13-4096-$i.txt"
        cat "$out/sk13-4096-$i.txt"
    done
    echo "== 4. s8 tn 8192^3: the library's AUTO, then stream-K 128x128x128"
    BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 8192 >"$out/sk13-8192-auto.txt"
    BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 8192 --schedule streamk $SK >"$out/sk13-8192-sk.txt"
    cat "$out/sk13-8192-auto.txt" "$out/sk13-8192-sk.txt"
    echo "== 5. bf16 tn 4096^3 on the SM80 kernel: auto, stream-K"
    BENCH_TIMEOUT=20 device_bench_gemm --dtype bf16 --layout tn --sizes 4096 --schedule auto,streamk
    echo "== 6. at $(($(date +%s) - start)) s: streamk_sm80_test's GPU cases"
    device_late tests || CUTEC_TEST_GPU_ONLY=1 TEST_TIMEOUT=20 device_tests kernels/gemm/streamk_sm80_test

    echo "== decisions"
    wins=0
    for i in 1 2; do
        a=$(bench_tops "$out/sk13-4096-$i.txt" "-auto") s=$(bench_tops "$out/sk13-4096-$i.txt" "-sk")
        echo "4096^3 pair $i: AUTO ${a:-none}, stream-K ${s:-none} TOPS"
        wins=$((wins + $(bench_atleast "$s" "$a" 1.02)))
    done
    if [ "$wins" -eq 2 ]; then
        echo "decides: s8 stream-K is the library's at M N <= 4096^2 (lib.c: s8_streamk = true)"
    else
        echo "decides: s8 stream-K stays opt-in (--schedule streamk; not 2% faster in both pairs)"
    fi
    a=$(bench_tops "$out/sk13-8192-auto.txt" "tensorop_smem") s=$(bench_tops "$out/sk13-8192-sk.txt" "tensorop_smem")
    echo "8192^3: the library's AUTO ${a:-none}, stream-K 128x128x128 ${s:-none} TOPS"
    if [ "$(bench_atleast "$s" "$a" 1.02)" -eq 1 ]; then
        echo "decides: by_size's s8 row to every size (up_to INT64_MAX) with s8_streamk = true"
    else
        echo "decides: 8192^3 keeps the library's tiling (stream-K not 2% faster)"
    fi
    echo "decides: bf16 stream-K stays opt-in (sm_90 runs bf16 on the Hopper kernel)"
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
