#!/bin/sh
# The Hopper bf16 GEMM at 4096^3, 8192^3 and the LLM shapes (issue 15 item 1, engineer hop22):
# cuBLAS 13.1's own tiles (its cuBLASLt log in the early mid pass, 21:42 UTC: 192 x 192 in 1x2
# clusters at 8192x28672x4096, 256 x 128 1x2 at 4096^3 and the other two LLM shapes, 320 x 128
# 1x2 at 8192^3), now in the plan:
#   T  192 x 192 by three consumer warpgroups of 64 x 192 (--tile 192x192x64; 512 threads,
#      setmaxnreg 24 / 160): 11% fewer L2 bytes a MAC than 128 x 256, 8192x28672 in 43 x 150
#      tiles (49 rounds of pairs on 66 cluster slots, 99.7% full) against 64 x 112 (55, 98.7%).
#   W  256 x 128 by two warpgroups of two 64 x 128 sets (--tile 256x128x64).
# The base is the library's kernel at 8192^3 and the LLM shapes: 128 x 256, 2x1, the whole
# tile's store, 3 stages (hopper2x1-t128x256x64; at 4096^3 the library runs 1x1).  All rows of
# one process are one sweep (--tile A,B --cluster 2x1,1x2 --store tile), cuBLAS in it on the
# same gaussian inputs; every row is sampled against float64 and compared with cuBLAS's
# elements before it is timed.  (The early mid pass timed the consumers apart,
# CUTEC_GEMM_HOPPER_STAGGER=2: -0.9 point on average, slower at 4 of 5 shapes; deleted.)  Steps:
#   1. on the GPU against float64 first: `cutec run gemm` with 192- and 256-row tiles at odd
#      sizes (1x2 and 2x1, the whole tile and --store tma, f16 M-/N-major, beta, GELU).
#   2. two processes of 128 x 256 and T (2x1, 1x2) at the five shapes, then one of 128 x 256
#      and W.
#   3. notes, where time is left: T with --store tma (4 stages) at the LLM shapes; what a tile
#      costs beside its k-tiles (8192 x 8192 x K, K = 1024..8192, time = a + b K fitted).
# Decides (% of cuBLAS in the same process; a point = 1% of cuBLAS; each shape the mean of its
# runs), each of T and W in 2x1 and 1x2 against the base row over 8192^3 and the three LLM
# shapes (the class of hopper_auto.c's many-tiles row): ahead by 0.5 point or more on average
# and behind by no more than 0.5 at any -> make default (the best such: many_alt_on true and
# many_alt that tile and cluster, in hopper_auto.c); else they stay explicit tilings, with a
# note where one leads a shape by 0.5 or more (a row by shape is then the next step).
# No step starts past BUDGET_S (default 75 s: about 90 s in all), each under its own timeout.
#   ITERS=10 sh scripts/device-hop22.sh   (log: $OUT/hop22.log, default build/device-out)
. scripts/device-common.sh
log="$out/hop22.log"
rows="$out/hop22-rows.txt"
start=$(date +%s)
budget=${BUDGET_S:-75}
: >"$rows"
shapes=4096,8192,8192x28672x4096,8192x4096x14336,8192x6144x4096
llm=8192x28672x4096,8192x4096x14336,8192x6144x4096
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
# fit: ms = a + b K by least squares for each kernel of form fit's rows (a square's size is its
# K: the bench names no shape for it): a is what the 16 rounds of 128 x 256 tiles (2048 on 132
# SMs) cost beside their k-tiles (epilogues, first batches, drains, the launch)
fit()
{
    awk '/^-- form=/ { take = $2 == "form=fit"; k = ""; next }
        $2 == "#" && $3 == "M" { k = $8; sub(":", "", k); next }
        $2 == "#" && $3 == "SM" { k = ""; next }
        take && $8 == "ok" { kk = k != "" ? k : $2; r = $3; n[r]++; x[r] += kk; y[r] += $4; xx[r] += kk * kk
                             xy[r] += kk * $4; if (kk == 4096) at[r] = $4 }
        END { for (r in n) if (n[r] >= 3) {
                b = (n[r] * xy[r] - x[r] * y[r]) / (n[r] * xx[r] - x[r] * x[r]); a = (y[r] - b * x[r]) / n[r]
                printf("fit: %s ms = %.4f + %.7f K (%d points): %.1f us a round of tiles, %.2f%% of K = 4096\n",
                       r, a, b, n[r], a / 16 * 1000, at[r] ? 100 * a / at[r] : 0) } }' "$rows"
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
    check --dtype bf16 --layout tn --m 1000 --n 1021 --k 1000 --tile 256x128x64 --cluster 1x2 --store tile
    check --dtype f16 --layout nt --m 2056 --n 1000 --k 1001 --tile 256x128x64 --cluster 2x1 --store tma --beta 0.5
    echo "== 2. the library's tile beside T, 2x1 and 1x2, two processes; then beside W"
    for f in sweep sweep; do
        bench $f 40 $shapes --tile 128x256x64,192x192x64 --cluster 2x1,1x2 --store tile
    done
    bench sweep 40 $shapes --tile 128x256x64,256x128x64 --cluster 2x1,1x2 --store tile
    echo "== 3. notes: T with --store tma (4 stages); a tile's cost beside its k-tiles"
    bench tma 30 $llm --tile 192x192x64 --cluster 2x1,1x2 --store tile,tma
    bench fit 20 8192x8192x1024,8192x8192x2048,8192x8192x4096,8192 --cluster 2x1 --store tile
    fit
    echo "== what decides"
    echo "% of cuBLAS by row (each shape's runs):"
    device_records | awk '$1 == "sweep" { k = $3 " " $4; s[k] = s[k] " " $5 } END { for (k in s) print "  " k ":" s[k] }' | sort
    base=hopper2x1-t128x256x64
    best="" bestm=-99
    for t in hopper2x1-t192x192x64 hopper1x2-t192x192x64 hopper2x1-t256x128x64 hopper1x2-t256x128x64; do
        res=$(device_records | awk -v B="$base" -v T="$t" '
            $1 == "sweep" && ($4 == B || $4 == T) { k = $3; s[$4, k] += $5; c[$4, k]++; keys[k] = 1 }
            END { for (k in keys) if (c[B, k] && c[T, k]) {
                    d = s[T, k] / c[T, k] - s[B, k] / c[B, k]
                    printf("  %s: %s %.2f against %s %.2f: %+.2f points\n", k, T, s[T, k] / c[T, k], B, s[B, k] / c[B, k], d)
                    if (k != "4096^3") { t += d; n++; if (n == 1 || d < lo) lo = d } }
                if (n) printf("mean %.2f min %.2f count %d\n", t / n, lo, n) }')
        echo "$t against $base:"
        echo "$res" | grep "^  "
        line=$(echo "$res" | grep "^mean")
        [ -z "$line" ] && continue
        m=$(echo "$line" | awk '{ print $2 }') lo=$(echo "$line" | awk '{ print $4 }') n=$(echo "$line" | awk '{ print $6 }')
        pass=$(awk -v m="$m" -v lo="$lo" -v n="$n" 'BEGIN { print (m >= 0.5 && lo >= -0.5 && n >= 4) ? 1 : 0 }')
        echo "  $t: $m points on average over $n shapes (8192^3 and the LLM shapes), $lo at the least (passes: $pass)"
        echo "$res" | awk '/^  / && $NF == "points" { d = $(NF-1); if (d + 0 >= 0.5) print "  note: leads by 0.5 or more at " $1 }'
        if [ "$pass" = 1 ] && awk -v m="$m" -v b="$bestm" 'BEGIN { exit !(m > b) }'; then best=$t bestm=$m; fi
    done
    if [ -n "$best" ]; then
        echo "$best" | awk -F'[-tx]' '{ printf("decides: %s make default in the many-tiles row: many_alt_on true, many_alt {.bm = %s, .bn = %s, .cluster_m = %s, .cluster_n = %s, .c_store = CUTE_GEMM_STORE_TILE} in hopper_auto.c\n", $0, $4, $5, substr($1, 7), $2) }'
    else
        echo "decides: T and W keep as explicit tilings (--tile 192x192x64, 256x128x64; many_alt_on false): none 0.5 point ahead on average over 8192^3 and the LLM shapes with none 0.5 behind"
    fi
    echo "notes (3), T by cluster and store, % of cuBLAS:"
    device_records | awk '$1 == "tma" { print "  " $3, $4, $5 }'
    device_end
} >"$log" 2>&1
cat "$log"
