#!/bin/sh
# Engineer s15: the SM80 GEMM's persistent schedule two blocks an SM (issue 13's s8 tn 4096^3
# toward 80% of the mma.sync ceiling; AUTO, a block a tile, 928-939 TOPS = 75%).
# `--schedule persistent` on tensorop_smem: a grid of the resident blocks (two an SM at 2x2
# warps: 264 on an H200) walking the tiles in the raster band order of a block a tile, each
# issuing its next tile's first two k-tiles before its epilogue, whose C tile (two 32 KB parts
# of s32 at s8 128x128x128) lies over stage 2: 96 KB a block, a block a tile's.  The walk
# (CUTEC_GEMM_SM80_PERSISTENT): static, each block tiles b, b + 264, ...; dynamic, from a
# counter as blocks free up.  The second early pass measured static 866-870, dynamic 898-901,
# AUTO 928-939 at 4096^3; 8192^3 dynamic 994 against 1,005 (128x128 a block a tile).  (The mid
# pass's C whole over stages 1-2 with one k-tile first: dynamic 813; taken back.)
# Under 90 s on one H200 after the lead's `make all tests` (BUDGET_S, default 75: a step past
# it prints "skipped").  Logs under $OUT.
#   1. on the GPU against float64 FIRST (every element): s8 static and dynamic (340 tiles on
#      264 blocks, K tails, alpha, beta; nt), bf16 dynamic at its default 256x128 (one an SM);
#   2. `cutec bench mma --dtypes s8`: this run's ceiling;
#   3. s8 tn 4096^3, AUTO's tiling (128x128x128, 2x2, 3 stages) a block a tile (-auto) and
#      persistent (-persistent), each walk in its own process (with its AUTO and cuBLAS), twice;
#   4. s8 tn 8192^3: the library's AUTO (256x128x128), then 128x128x128 auto / static / dynamic;
#   5. the K sweep 4096x4096xK (K 2048, 8192), auto / dynamic: a round's fixed cost against
#      the main loop's rate;
#   6. bf16 tn 4096^3 on the SM80 kernel (its default 256x128, one an SM), auto / dynamic;
#   7. ptxas sm_90a: registers and spills of the static and dynamic kernels.
# The rule ("decides:" lines): of the walks at least 1% faster than AUTO in BOTH 4096^3 pairs,
# the faster (the pairs' sum) -> the library takes it for s8 (src/kernels/gemm/lib.c `static
# const int64_t s8_persistent_up_to = 0;` -> 4096LL * 4096, and for dynamic also
# src/kernels/gemm/tile_sched.c gemm_sm80_dynamic's default 0 -> 1), and if it is also 1%
# faster than the library's AUTO (256x128x128) at 8192^3, at every size (-> INT64_MAX); else
# both stay opt-in (--schedule persistent, CUTEC_GEMM_SM80_PERSISTENT=dynamic).  A rate above
# the mma.sync ceiling means the counter was not reset between calls: "broken", kept opt-in.
# bf16 stays opt-in (the Hopper kernel runs bf16 on sm_90).
. scripts/device-common.sh
log="$out/s15.log"
start=$(date +%s)
budget=${BUDGET_S:-75}
iters=${ITERS:-10}
T128="--tile 128x128x128 --warps 2x2 --stages 3"

{
    device_begin
    sm80_gpu
    echo "== 1. the persistent kernel on the GPU against float64 (every element)"
    for args in "static --dtype s8 $T128 --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" \
        "dynamic --dtype s8 $T128 --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" \
        "dynamic --dtype s8 $T128 --layout nt --m 2560 --n 2049 --k 263 --beta 1" \
        "dynamic --dtype bf16 --layout tn --m 2049 --n 2560 --k 263 --alpha 1.5 --beta -0.5"; do
        # shellcheck disable=SC2086
        sm80_check "$args" 15 env CUTEC_GEMM_SM80_PERSISTENT="${args%% *}" build/cutec run gemm --backend cuda \
            --variant tensorop_smem --schedule persistent ${args#* }
    done
    echo "== 2. at $(($(date +%s) - start)) s: bench mma s8 (this run's ceiling; 1,247.5-1,258.8 before)"
    sm80_mma | tee "$out/s15-mma.txt"
    echo "== 3. s8 tn 4096^3: AUTO's tiling a block a tile (-auto) and persistent (-persistent), each walk, twice"
    for i in 1 2; do
        for w in static dynamic; do
            CUTEC_GEMM_SM80_PERSISTENT=$w BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 4096 \
                --schedule auto,persistent $T128 >"$out/s15-4096-$w$i.txt"
            echo "$w:" && cat "$out/s15-4096-$w$i.txt"
        done
    done
    echo "== 4. at $(($(date +%s) - start)) s: s8 tn 8192^3: the library's AUTO, then 128x128x128 auto / static / dynamic"
    BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 8192 >"$out/s15-8192-auto.txt"
    for w in static dynamic; do
        CUTEC_GEMM_SM80_PERSISTENT=$w BENCH_TIMEOUT=25 device_bench_gemm --dtype s8 --layout tn --sizes 8192 \
            --schedule auto,persistent $T128 >"$out/s15-8192-$w.txt"
    done
    cat "$out/s15-8192-auto.txt" && echo "static:" && cat "$out/s15-8192-static.txt"
    echo "dynamic:" && cat "$out/s15-8192-dynamic.txt"
    echo "== 5. at $(($(date +%s) - start)) s: the K sweep, 4096x4096xK (K 2048 / 8192), auto / dynamic"
    CUTEC_GEMM_SM80_PERSISTENT=dynamic BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn \
        --sizes 4096x4096x2048,4096x4096x8192 --schedule auto,persistent $T128
    echo "== 6. at $(($(date +%s) - start)) s: bf16 tn 4096^3 on the SM80 kernel (default tiling): auto / dynamic"
    CUTEC_GEMM_SM80_PERSISTENT=dynamic BENCH_TIMEOUT=20 device_bench_gemm --dtype bf16 --layout tn --sizes 4096 \
        --schedule auto,persistent
    echo "== 7. ptxas sm_90a: the persistent kernels, static and dynamic"
    for w in static dynamic; do
        for args in "--dtype s8 $T128" "--dtype bf16"; do
            # shellcheck disable=SC2086
            echo "$w $args: $(CUTEC_GEMM_SM80_PERSISTENT=$w CUTEC_NO_CACHE=1 timeout 10 build/cutec compile gemm --variant tensorop_smem \
                --layout tn --arch sm_90a --schedule persistent $args --emit usage 2>&1 |
                grep -E 'registers|spill|rror' | tr '\n' ' ')"
        done
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
    ceiling=$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "TOPS") { print $i; exit } }' "$out/s15-mma.txt" 2>/dev/null)
    picked= best=0
    for w in static dynamic; do
        won=0
        for i in 1 2; do
            lead "4096^3 pair $i: AUTO, persistent $w" "$out/s15-4096-$w$i.txt" -auto "$out/s15-4096-$w$i.txt" -persistent
        done
        p1=$(bench_tops "$out/s15-4096-${w}1.txt" -persistent) p2=$(bench_tops "$out/s15-4096-${w}2.txt" -persistent)
        sum=$(awk -v a="$p1" -v b="$p2" 'BEGIN { print a + b }')
        if [ -n "$ceiling" ] && [ "$(bench_atleast "$p1" "$ceiling" 1.0)" -eq 1 ]; then
            echo "decides: persistent $w broken: ${p1} TOPS is past the ${ceiling} TOPS ceiling (its counter not reset?)"
        elif [ "$won" -eq 2 ] && [ "$(bench_atleast "$sum" "$best" 1.0)" -eq 1 ]; then
            picked=$w best=$sum
        fi
    done
    if [ -n "$picked" ]; then
        won=0
        lead "8192^3: the library's AUTO, persistent $picked 128x128x128" "$out/s15-8192-auto.txt" tensorop_smem \
            "$out/s15-8192-$picked.txt" -persistent
        flip="lib.c: s8_persistent_up_to = 4096LL * 4096"
        [ "$won" -eq 1 ] && flip="lib.c: s8_persistent_up_to = INT64_MAX"
        [ "$picked" = dynamic ] && flip="$flip; tile_sched.c: gemm_sm80_dynamic's default 0 -> 1"
        echo "decides: s8 persistent ($picked) is the library's ($flip)"
    else
        echo "decides: s8 persistent stays opt-in, every walk (none 1% ahead of AUTO in both 4096^3 pairs)"
    fi
    echo "decides: bf16 persistent stays opt-in (sm_90 runs bf16 on the Hopper kernel)"
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
