#!/bin/sh
# The Hopper bf16 GEMM at the LLM shapes (issue 15 item 1, engineer hop22): cuBLAS 13.1's own
# tile where it fills the card's rounds as well.  cuBLASLt's log (early mid pass, 21:42 UTC):
# 192 x 192 in 1x2 clusters at 8192x28672x4096 (256 x 128 1x2 at 4096^3 and the other LLM shapes,
# 320 x 128 1x2 at 8192^3).  The plan now takes 192 x 192 by three consumer warpgroups of
# 64 x 192 (--tile 192x192x64; 512 threads, setmaxnreg 24 / 160), and hopper_auto.c's
# many-tiles row puts it, in 1x2 clusters, where its rounds x 9/8 come within 1% of 128 x 256
# 2x1's (`fills_192`, the flip by_count_192, the default since 22:25 UTC): of the shapes timed,
# 8192x28672x4096 (49 x 9/8 = 55.1 against 55) and 8192x14336x4096 (25 against 28).  The second
# early pass (22:06 UTC): 8192x28672x4096 100.1, 99.6, 101.6% of cuBLAS against 97.9, 99.3, 100.0;
# at 8192^3 and the other LLM shapes, where the count says worse, 1.6 to 9.6 points behind.
# Each row is sampled against float64 and compared with cuBLAS's elements before it is timed,
# cuBLAS in the same process on the same gaussian inputs.  Steps:
#   1. on the GPU against float64 first: `cutec run gemm` with 192-row tiles at odd sizes
#      (1x2 and 2x1, the whole tile and --store tma, f16 M-/N-major, beta, GELU); the library's
#      choice at the large shapes (192 x 192 1x2 at two of them) is checked by step 3's rows.
#   2. two processes of one sweep (128 x 256 and 192 x 192, 2x1 and 1x2, the whole tile) at
#      the two shapes the rule picks.
#   3. the library's row at 4096^3, 8192^3 and the five LLM-like shapes, two processes (what
#      cutec_gemm runs, against cuBLAS).
# Decides (% of cuBLAS in the same process; a point = 1% of cuBLAS; each shape the mean of its
# runs): 192 x 192 1x2 against 128 x 256 2x1 at the shapes the rule picks: ahead by 0.5 point or
# more on average and behind by no more than 0.5 at either -> keep (by_count_192 true in
# hopper_auto.c); else -> by_count_192 false (128 x 256 2x1 everywhere, as before).
# No step starts past BUDGET_S (default 70 s: about 85 s in all), each under its own timeout.
#   ITERS=10 sh scripts/device-hop22.sh   (log: $OUT/hop22.log, default build/device-out)
. scripts/device-common.sh
log="$out/hop22.log"
rows="$out/hop22-rows.txt"
start=$(date +%s)
budget=${BUDGET_S:-70}
: >"$rows"
shapes=4096,8192,8192x28672x4096,8192x14336x4096,8192x4096x14336,8192x6144x4096
picked=8192x28672x4096,8192x14336x4096
# bench F SECONDS SIZES ARGS...: one bf16 bench process (F names it in $rows), its rows into $rows
bench()
{
    f=$1 lim=$2 s=$3
    shift 3
    device_late "$f $s $*" && return
    echo "-- form=$f dtype=bf16 at $(($(date +%s) - start)) s: --sizes $s $*" | tee -a "$rows"
    # shellcheck disable=SC2068
    timeout "$lim" stdbuf -oL -eL build/cutec bench gemm --dtype bf16 --layout tn --sizes "$s" --variants hopper \
        --iters "$iters" $@ 2>&1 | stamp | quiet | tee -a "$rows"
}
# check ARGS...: `cutec run gemm ARGS`: its verdict against float64 (or its error)
check()
{
    device_late "check $*" && return
    # shellcheck disable=SC2068
    echo "$*: $(timeout 15 build/cutec run gemm --variant hopper $@ 2>&1 |
        grep -E "verified|FAIL|rror|no kernel|time:" | head -n 3 | tr '\n' ' ')"
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv 2>&1
    if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; budget=-1; fi
    echo "== 1. 192-row tiles on the GPU against float64"
    check --dtype bf16 --layout tn --m 1000 --n 1021 --k 1000 --tile 192x192x64 --cluster 1x2 --store tile
    check --dtype f16 --layout nt --m 2056 --n 1000 --k 1001 --tile 192x192x64 --cluster 2x1 --store tma
    check --dtype bf16 --layout tn --m 776 --n 1003 --k 1000 --tile 192x192x64 --beta 0.5
    check --dtype bf16 --layout tn --m 1000 --n 1021 --k 264 --tile 192x128x64 --epilogue gelu
    echo "== 2. 128 x 256 and 192 x 192, 2x1 and 1x2, at the shapes the rule picks: two processes"
    for f in sweep sweep; do
        bench $f 30 $picked --tile 128x256x64,192x192x64 --cluster 2x1,1x2 --store tile
    done
    echo "== 3. the library's row (cutec_gemm's choice), two processes"
    for f in lib lib; do
        bench $f 30 $shapes
    done
    echo "== what decides"
    echo "% of cuBLAS by row (each shape's runs):"
    device_records | awk '{ k = $3 " " $4; s[k] = s[k] " " $5 } END { for (k in s) print "  " k ":" s[k] }' | sort
    res=$(device_records | awk -v B=hopper2x1-t128x256x64 -v T=hopper1x2-t192x192x64 '
        $1 == "sweep" && ($4 == B || $4 == T) { k = $3; s[$4, k] += $5; c[$4, k]++; keys[k] = 1 }
        END { for (k in keys) if (c[B, k] && c[T, k]) {
                d = s[T, k] / c[T, k] - s[B, k] / c[B, k]
                printf("  %s: %s %.2f (%d runs) against %s %.2f (%d): %+.2f points\n", k, T, s[T, k] / c[T, k], c[T, k], B,
                       s[B, k] / c[B, k], c[B, k], d)
                t += d; n++; if (n == 1 || d < lo) lo = d }
            if (n) printf("mean %.2f min %.2f count %d\n", t / n, lo, n) }')
    echo "192 x 192 1x2 against 128 x 256 2x1:"
    echo "$res" | grep "^  "
    echo "$res" | grep "^mean" | awk '{ r = "by_count_192 false in hopper_auto.c (128 x 256 2x1 everywhere, as before)"
            if ($2 >= 0.5 && $4 >= -0.5) r = "keep by_count_192 true in hopper_auto.c (the default since 22:25 UTC)"
            printf("decides: 192 x 192 1x2 where its rounds fill as well, %+.2f points on average over %d shapes, %+.2f at the least: %s\n", $2, $6, $4, r) }'
    echo "$res" | grep -q "^mean" || echo "decides: 192 x 192: no figures (by_count_192 stays as committed)"
    device_end
} >"$log" 2>&1
cat "$log"
