#!/bin/sh
# Engineer s14: issue 13's s8 tn GEMM at 4096^3 on the SM80 kernel (AUTO 945-950 TOPS = 75.5%
# of the mma.sync ceiling; the issue asks 80%, ~1,004).  Staggered stream-K
# (CUTEC_SM80_STREAMK=stagger with --schedule streamk; src/kernels/gemm/streamk_stagger.c):
# each block its own tiles c, c + G, ... of the raster order (a block a tile's L2 walk), shifted
# by c K / G k-tiles (the head of its last tile first, its tail last, through the block's own
# workspace slot, no flags), so C's stores fall one tile at a time under the other blocks'
# main loops instead of every SM at once between rounds.  Plain stream-K (sk13: 857 against
# AUTO's 946) is timed beside it for the record.  Under 80 s on one H200 after the lead's
# `make all tests` (BUDGET_S, default 70: a step past it prints "skipped").  Logs under $OUT.
#   1. on the GPU against float64 FIRST (every element): staggered s8 with tails, alpha, beta
#      (tn, nt), bf16 (streamk_sm80_test's GPU cases, 4096^3 sampled, in step 6);
#   2. `cutec bench mma --dtypes s8`: this run's ceiling;
#   3. s8 tn 4096^3: AUTO's tiling a block a tile (-auto) and staggered (-sk), in one process
#      beside cuBLAS, twice; plain stream-K once;
#   4. s8 tn 8192^3: the library's AUTO, then staggered 128x128x128 (with AUTO's tiling beside
#      it in the same process);
#   5. the K sweep (4096x4096xK, K 128 / 2048 / 8192): AUTO and staggered, for the fit
#      t = a + K b (AUTO: 17.7 us + K x 30.9 ns): is C's time (a) under the main loops now?
#   6. streamk_sm80_test's GPU cases; 7. ptxas (sm_90a): the staggered kernel's registers, spills.
# The mid pass (2026-11-27 16:55, bench/RESULTS.md) measured staggered 817 TOPS against AUTO's
# 944 and plain's 864 at 4096^3, 902 against 1,024 at 8192^3: it stays opt-in; this pass
# repeats the decisions (its raster 4 / 16, 256x128 and plain K-sweep rows are in RESULTS.md).
# The rules ("decides:" lines):
#   s8 4096: staggered at least 2% faster than AUTO in BOTH 4096^3 pairs (and the form rule
#         below) -> the library takes it: src/kernels/gemm/lib.c `s8_streamk = false` -> true
#         (by_size's s8 row, M N <= 4096^2, unbatched, no fused epilogue); else AUTO stays a
#         block a tile.
#   8192: staggered 128x128x128 at least 2% faster than the library's AUTO at 8192^3 -> by_size's
#         s8 row to every size (its up_to 4096LL * 4096 -> INT64_MAX, with the flips above);
#         else the library keeps its 8192 tiling.
#   form: plain stream-K slower than staggered at 4096^3 in this run -> staggered is the SM80
#         stream-K's form (plan_multistage.c `stagger_default = false` -> true; plain stays
#         as CUTEC_SM80_STREAMK=plain); else plain stays the form, staggered opt-in.
. scripts/device-common.sh
log="$out/s14.log"
start=$(date +%s)
budget=${BUDGET_S:-70}
iters=${ITERS:-10}
SK="--tile 128x128x128 --warps 2x2 --stages 3"

# the bench with stream-K's form $1 (plain, stagger), in a subshell of its own
form_bench() { (CUTEC_SM80_STREAMK=$1 && export CUTEC_SM80_STREAMK && shift && device_bench_gemm "$@"); }
stagger_bench() { form_bench stagger "$@"; }

{
    device_begin
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "== no GPU here: every GPU step skipped"
        budget=-1
    fi
    echo "== 1. staggered stream-K on the GPU against float64 (every element)"
    for args in "--dtype s8 $SK --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" \
        "--dtype s8 $SK --layout nt --m 2560 --n 2049 --k 263 --beta 1" \
        "--dtype bf16 --layout tn --m 2049 --n 2560 --k 263 --alpha 1.5 --beta -0.5"; do
        device_late run "$args" && continue
        # shellcheck disable=SC2086
        echo "run $args: $(CUTEC_SM80_STREAMK=stagger timeout 15 build/cutec run gemm --backend cuda \
            --variant tensorop_smem --schedule streamk $args 2>&1 | grep -iE "verified|wrong|rror|fail" | head -2 | tr '\n' ' ')"
    done
    echo "== 2. at $(($(date +%s) - start)) s: bench mma s8 (this run's ceiling; 1,255.1 at session 32's mid pass)"
    device_late mma || timeout 15 build/cutec bench mma --dtypes s8 --iters 3 2>&1 | grep -E "^s8"
    echo "== 3. s8 tn 4096^3: AUTO's tiling a block a tile (-auto), staggered (-sk), twice; plain once"
    for i in 1 2; do
        BENCH_TIMEOUT=20 stagger_bench --dtype s8 --layout tn --sizes 4096 --schedule auto,streamk $SK >"$out/s14-4096-$i.txt"
        cat "$out/s14-4096-$i.txt"
    done
    BENCH_TIMEOUT=20 form_bench plain --dtype s8 --layout tn --sizes 4096 --schedule streamk \
        $SK >"$out/s14-4096-plain.txt"
    sed 's/-sk-/-plain-/' "$out/s14-4096-plain.txt"
    echo "== 4. at $(($(date +%s) - start)) s: s8 tn 8192^3: the library's AUTO, then staggered 128x128x128 beside AUTO's tiling"
    BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 8192 >"$out/s14-8192-auto.txt"
    BENCH_TIMEOUT=25 stagger_bench --dtype s8 --layout tn --sizes 8192 --schedule auto,streamk $SK >"$out/s14-8192-sk.txt"
    cat "$out/s14-8192-auto.txt" "$out/s14-8192-sk.txt"
    echo "== 5. at $(($(date +%s) - start)) s: the K sweep, 4096x4096xK (K 128 / 2048 / 8192): AUTO, staggered"
    BENCH_TIMEOUT=20 stagger_bench --dtype s8 --layout tn --sizes 4096x4096x128,4096x4096x2048,4096x4096x8192 \
        --schedule auto,streamk $SK
    echo "== 6. at $(($(date +%s) - start)) s: streamk_sm80_test's GPU cases (4096^3 sampled, plain and staggered)"
    device_late tests || CUTEC_TEST_GPU_ONLY=1 TEST_TIMEOUT=25 device_tests kernels/gemm/streamk_sm80_test
    echo "== 7. ptxas sm_90a, staggered s8 128x128x128 tn"
    CUTEC_SM80_STREAMK=stagger build/cutec compile gemm --dtype s8 --variant tensorop_smem --layout tn --schedule streamk \
        $SK --arch sm_90a --emit usage 2>&1 | grep -E "registers|spill" | tr '\n' ' '
    echo

    echo "== decisions"
    wins=0
    for i in 1 2; do
        a=$(bench_tops "$out/s14-4096-$i.txt" "-auto") s=$(bench_tops "$out/s14-4096-$i.txt" "-sk")
        echo "4096^3 pair $i: AUTO ${a:-none}, staggered ${s:-none} TOPS"
        wins=$((wins + $(bench_atleast "$s" "$a" 1.02)))
    done
    p=$(bench_tops "$out/s14-4096-plain.txt" "-sk") s=$(bench_tops "$out/s14-4096-1.txt" "-sk")
    echo "4096^3: plain stream-K ${p:-none}, staggered ${s:-none} TOPS"
    form=0
    if [ "$(bench_atleast "$s" "$p" 1.0)" -eq 1 ]; then
        form=1
        echo "decides: staggered is the SM80 stream-K's form (plan_multistage.c stagger_default = true; plain opt-in)"
    else
        echo "decides: plain stays the SM80 stream-K's form, staggered opt-in (CUTEC_SM80_STREAMK=stagger)"
    fi
    if [ "$wins" -eq 2 ] && [ "$form" -eq 1 ]; then
        echo "decides: s8 AUTO at M N <= 4096^2 takes staggered stream-K (lib.c s8_streamk = true)"
    else
        echo "decides: s8 AUTO stays a block a tile (staggered not 2% faster than AUTO in both pairs)"
    fi
    a=$(bench_tops "$out/s14-8192-auto.txt" "tensorop_smem") s=$(bench_tops "$out/s14-8192-sk.txt" "-sk")
    echo "8192^3: the library's AUTO ${a:-none}, staggered 128x128x128 ${s:-none} TOPS"
    if [ "$wins" -eq 2 ] && [ "$form" -eq 1 ] && [ "$(bench_atleast "$s" "$a" 1.02)" -eq 1 ]; then
        echo "decides: by_size's s8 row to every size (up_to INT64_MAX) with the flips above"
    else
        echo "decides: 8192^3 keeps the library's tiling"
    fi
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
