#!/bin/sh
# The Hopper bf16/f16 GEMM beside CuTe DSL's persistent example (hopper/dense_gemm_persistent.py;
# issue 15 item 1, engineer hop21).  Two forms of the example's that the library's kernel
# lacks, opt-in until timed (hopper_plan.c, `trials`):
#   R  CUTEC_GEMM_HOPPER_RELEASE=warp: lane 0 of each consumer warp releases a stage (8
#      arrivals a stage on its empty barrier) where every consumer thread does (256).  Only
#      without clusters: the library's kernel at 4096^3 and 2048^3; at the LLM shapes it runs
#      2x1, whose release is a warp's already, so there R is timed on the 1x1 kernel.
#   P  CUTEC_GEMM_HOPPER_PREFETCH=1: thread 0 prefetches the TMA descriptors first thing.
# and the example's own configuration (its raster along M without bands: --raster 1; 4 stages
# beside TMA-store buffers: --store tma; 2x1) beside the library's.  Each bench is a process
# of its own (the forms are read when a kernel is planned), cuBLAS in it on the same gaussian
# inputs; every row is sampled against float64 and compared with cuBLAS's elements before
# it is timed.  Steps:
#   1. on the GPU against float64 first: `cutec run gemm` with R and P at odd N or K (ping-
#      pong at K 264, cooperative 1x1 with the whole tile, f16 M-/N-major, 128 x 128 with
#      beta) and 2048^3 (every element; the benches sample each row at every size).
#   2. bf16 4096^3 and 2048^3: base / RP.  3. f16 4096^3: base / RP.  4. the example's
#      configuration at 4096^3, f16 and bf16: raster 1 / 8, stores tma / tile, 1x1 / 2x1 (base
#      forms).  5. the LLM shapes, bf16: the library's 2x1 and the 1x1 whole-tile kernel, base
#      / R.  6. bf16 4096^3 again, RP / base.  7. R alone and P alone, bf16 4096^3 and 2048^3
#      (from step 5 on, as time allows: BUDGET_S=100 for all).
# Decides (% of cuBLAS in the same process; a point = 1% of cuBLAS; "hopper" = the library's
# row):
#   a. RP against base, over the squares measured (bf16 and f16; the mean of the runs of
#      each): ahead by 0.5 point or more on average and behind by no more than 0.5 at any
#      -> make both default (`by_warp` and `prefetch` true in hopper_plan.c); else keep
#      opt-in.  Where step 7 ran, its notes say which of the two carried it.
#   b. R at the LLM shapes (1x1 kernel): notes only (the library runs 2x1 there).
#   c. the example's configuration: a note per form against the library's row.
# No step starts past BUDGET_S (default 64 s: about 75 s in all), each under its own timeout.
#   ITERS=10 sh scripts/device-hop21.sh   (log: $OUT/hop21.log, default build/device-out)
. scripts/device-common.sh
log="$out/hop21.log"
rows="$out/hop21-rows.txt"
start=$(date +%s)
budget=${BUDGET_S:-64}
: >"$rows"
# form F: the environment of form F (base, R, P, RP)
form()
{
    case $1 in
    base) echo "CUTEC_GEMM_HOPPER_RELEASE=thread CUTEC_GEMM_HOPPER_PREFETCH=0" ;;
    R) echo "CUTEC_GEMM_HOPPER_RELEASE=warp CUTEC_GEMM_HOPPER_PREFETCH=0" ;;
    P) echo "CUTEC_GEMM_HOPPER_RELEASE=thread CUTEC_GEMM_HOPPER_PREFETCH=1" ;;
    RP) echo "CUTEC_GEMM_HOPPER_RELEASE=warp CUTEC_GEMM_HOPPER_PREFETCH=1" ;;
    esac
}
# bench F DTYPE SECONDS SIZES ARGS...: one bench process in form F, its rows into $rows
bench()
{
    f=$1 d=$2 lim=$3 s=$4
    shift 4
    device_late "$f $d $s $*" && return
    echo "-- form=$f dtype=$d at $(($(date +%s) - start)) s: --sizes $s $*" | tee -a "$rows"
    # shellcheck disable=SC2046,SC2068
    env $(form "$f") timeout "$lim" stdbuf -oL -eL build/cutec bench gemm --dtype "$d" --layout tn --sizes "$s" \
        --variants hopper --iters "$iters" $@ 2>&1 | stamp | quiet | tee -a "$rows"
}
# check ARGS...: `cutec run gemm ARGS` in form RP, its verdict
check()
{
    device_late "check $*" && return
    # shellcheck disable=SC2046,SC2068
    echo "RP $*: $(env $(form RP) timeout 15 build/cutec run gemm --variant hopper $@ 2>&1 | grep -E "verified|FAILED|rror|unsupported" | head -n 2 | tr '\n' ' ')"
}
# records: "FORM DTYPE SHAPE ROW PCT" of every row checked ok
records()
{
    awk '/^-- form=/ { split($2, a, "="); f = a[2]; split($3, b, "="); d = b[2]; shape = ""; next }
        $2 == "#" && $3 == "M" { m = $4; n = $6; k = $8; gsub(/[,:]/, "", m); gsub(/[,:]/, "", n); gsub(/[,:]/, "", k)
                                 shape = m "x" n "x" k; next }
        $NF == "ok" && $3 != "cublas" { p = $6; sub("%", "", p); print f, d, (shape != "" ? shape : $2 "^3"), $3, p }' "$rows"
}
# compare A B ROW: per (dtype, shape) with both, B - A in points (each form's runs' mean),
# a line each, then "mean MEAN min MIN count N" (nothing if none)
compare()
{
    records | awk -v A="$1" -v B="$2" -v R="$3" '$4 == R && ($1 == A || $1 == B) {
            key = $2 " " $3; s[$1, key] += $5; c[$1, key]++; keys[key] = 1 }
        END { for (k in keys) if (c[A, k] && c[B, k]) {
                a = s[A, k] / c[A, k]; b = s[B, k] / c[B, k]; d = b - a
                printf("  %s %s: %s %.2f (%d runs) against %s %.2f (%d): %+.2f points\n", k, R, B, b, c[B, k], A, a, c[A, k], d)
                t += d; n++; if (n == 1 || d < lo) lo = d }
            if (n) printf("mean %.2f min %.2f count %d\n", t / n, lo, n) }'
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; budget=-1; fi
    timeout 40 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. R and P on the GPU against float64"
    check --dtype bf16 --layout tn --m 1000 --n 1021 --k 264
    check --dtype f16 --layout nt --m 2056 --n 1000 --k 1001 --store tile
    check --dtype bf16 --layout tn --m 776 --n 1003 --k 1000 --tile 128x128x64 --beta 0.5
    check --dtype bf16 --layout tn --m 2048 --n 2048 --k 2048
    echo "== 2. bf16 squares: base / RP"
    bench base bf16 20 4096,2048
    bench RP bf16 20 4096,2048
    echo "== 3. f16 4096^3: base / RP"
    bench base f16 12 4096
    bench RP f16 12 4096
    echo "== 4. the example's configuration at 4096^3 (raster 1: along M, no bands; tma: 4 stages)"
    bench base f16 16 4096 --raster 1,8 --store tma,tile --cluster 1x1,2x1
    bench base bf16 16 4096 --raster 1,8 --store tma,tile --cluster 1x1,2x1
    echo "== 5. the LLM shapes, bf16: the library's 2x1 and the 1x1 whole tile, base / R"
    bench base bf16 20 8192x6144x4096,8192x4096x14336,8192x28672x4096 --cluster 2x1,1x1 --store tile
    bench R bf16 20 8192x6144x4096,8192x4096x14336,8192x28672x4096 --cluster 2x1,1x1 --store tile
    echo "== 6. bf16 4096^3 again: RP / base"
    bench RP bf16 12 4096
    bench base bf16 12 4096
    echo "== 7. R alone, P alone (bf16)"
    bench R bf16 20 4096,2048
    bench P bf16 20 4096,2048
    echo "== what decides"
    echo "f16 against bf16, the library's row and cuBLAS (TFLOP/s, % of cuBLAS), base forms:"
    awk '/^-- form=/ { take = $2 == "form=base" && $NF ~ /^4096(,2048)?$/ && !seen[$3]++; d = $3; next }
        take && ($3 == "cublas" || $3 == "hopper") { print "  " d, $2 "^3", $3, $5, $6 }' "$rows"
    res=$(compare base RP hopper)
    echo "RP against base, the library's row:"
    echo "$res" | grep "^  "
    echo "$res" | grep "^mean" | awk '{ m = $2; lo = $4; r = "keep opt-in (CUTEC_GEMM_HOPPER_RELEASE=warp, CUTEC_GEMM_HOPPER_PREFETCH=1)"
            if (m >= 0.5 && lo >= -0.5) r = "make default: by_warp and prefetch true in hopper_plan.c (trials)"
            printf("decides: RP (warp release + descriptor prefetch), %+.2f points on average over %d squares, %+.2f at the least: %s\n", m, $6, lo, r) }'
    echo "$res" | grep -q "^mean" || echo "decides: RP: no figures (keep opt-in)"
    for f in R P; do
        r=$(compare base $f hopper | grep "^mean")
        [ -n "$r" ] && echo "note: $f alone against base (bf16 squares): $r"
    done
    for row in hopper1x1 hopper2x1; do
        r=$(compare base R $row)
        [ -n "$r" ] && echo "note: the LLM shapes, R against base, $row (R applies to 1x1 only):" && echo "$r"
    done
    echo "note: the example's configuration at 4096^3, each row's % of cuBLAS (r1: its raster, r8: the library's; tma: 4 stages):"
    records | awk '$1 == "base" && $3 == "4096^3" && $4 ~ /r[18]-/ { printf("  %s %s %.1f\n", $2, $4, $5) }'
    device_end
} >"$log" 2>&1
cat "$log"
