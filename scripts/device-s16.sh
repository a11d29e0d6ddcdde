#!/bin/sh
# Engineer s16: issue 13, s8 x s8 -> s32 tn at 4096^3 on the SM80 kernel (mma.sync) toward 80%
# of the mma.sync ceiling (AUTO: 128x128x128, 2x2 warps, 3 stages, a block a tile, two an SM:
# 930-950 TOPS, ~75%).  What a round costs, and where s15's persistent kernel loses its ~6 us:
# the same tiling timed at 1, 2 and 4 rounds of 264 tiles (M x 2816 x 4096, M = 1536, 3072,
# 6144) and at half a round (768: 132 tiles, one block an SM), a block a tile and persistent
# (static and dynamic walks), each fitted t = c + r d (c: once a kernel; d: a round).
# Under 90 s on one H200 after the lead's `make all tests` (BUDGET_S, default 80: a step past
# it prints "skipped").  Logs under $OUT.
#   1. on the GPU against float64 FIRST (every element, exact): s8 tn 2049x2560x400 alpha 3
#      beta -2 and nt 2560x2049x263 beta 1, a block a tile (plain and PDL) and persistent;
#   2. `cutec bench mma --dtypes s8`: this run's ceiling;
#   3. the rounds: 768 / 1536 / 3072 / 6144 x 2816 x 4096 and 1536 x 2816 x 8192, a block a
#      tile, static, dynamic (each walk its own process);
#   4. the rounds without C's traffic (CUTEC_GEMM_SM80_DIAG=nostore, wrong by design: a
#      thread's first run of C stored, 1/32 of the bytes): what C's stores cost a round;
#   5. a block a tile as a programmatic dependent launch (CUTEC_GEMM_SM80_PDL=1: each block
#      waits for the previous grid first and lets the next one in) against the plain launch,
#      4096^3 and 8192^3 (the library's tilings), each in its own process, two pairs, cuBLAS
#      (cublasGemmEx s8 -> s32) in each;
#   6. ptxas sm_90a: registers and spills of the kernels timed.
# The rule ("decides:" lines), in points of this run's mma.sync ceiling: a form leads where it
# is 1 point ahead of AUTO at 4096^3 in both pairs and not behind (-0.3) at 8192^3 -> the
# library's default (PDL: plan_multistage.c dependent_launch's `by_default = 0` -> 1); behind
# by 0.3 points at 4096^3 in both pairs -> deleted; else it stays opt-in.
. scripts/device-common.sh
log="$out/s16.log"
start=$(date +%s)
budget=${BUDGET_S:-80}
iters=${ITERS:-20}
T128="--tile 128x128x128 --warps 2x2 --stages 3"
ROUNDS="768x2816x4096,1536x2816x4096,3072x2816x4096,6144x2816x4096,1536x2816x8192"

# ms FILE PAT N: the milliseconds (field 3) of the N-th row whose name matches PAT
ms() { awk -v pat="$2" -v n="$3" '$2 ~ pat && $3 ~ /^[0-9.]+$/ { if (++i == n) { print $3; exit } }' "$1"; }

# rounds_fit LABEL FILE PAT: the rows of $ROUNDS in us, and the fit over 1, 2, 4 rounds
rounds_fit()
{
    h=$(ms "$2" "$3" 1) r1=$(ms "$2" "$3" 2) r2=$(ms "$2" "$3" 3) r4=$(ms "$2" "$3" 4) k8=$(ms "$2" "$3" 5)
    awk -v l="$1" -v h="$h" -v a="$r1" -v b="$r2" -v d="$r4" -v k="$k8" 'BEGIN {
        if (a == "" || b == "" || d == "") { print l ": no rows"; exit }
        h *= 1000; a *= 1000; b *= 1000; d *= 1000; k *= 1000
        # least squares over (1, a), (2, b), (4, d)
        sx = 7; sy = a + b + d; sxx = 21; sxy = a + 2 * b + 4 * d
        slope = (3 * sxy - sx * sy) / (3 * sxx - sx * sx); c = (sy - slope * sx) / 3
        printf("%s: half round %.1f us, 1 / 2 / 4 rounds %.1f / %.1f / %.1f us: %.1f us + %.1f us a round", l, h, a, b, d, c, slope)
        printf(" (%.2f us a round at 4096^3 scale: 3.88 rounds -> %.1f us)", slope, c + 3.88 * slope)
        if (k != "") printf("; one round at K 8192 %.1f us: %.2f us a k-tile, a round %.1f us past its k-tiles", k, (k - a) / 32, a - 32 * (k - a) / 32 - c)
        printf("\n") }'
}

{
    device_begin
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "== no GPU here: every GPU step skipped"
        budget=-1
    fi
    echo "== 1. on the GPU against float64 first (every element)"
    for args in "auto --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" \
        "auto --layout nt --m 2560 --n 2049 --k 263 --beta 1" \
        "static --schedule persistent --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" \
        "dynamic --schedule persistent --layout nt --m 2560 --n 2049 --k 263 --beta 1" \
        "pdl --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" \
        "pdl --layout nt --m 2560 --n 2049 --k 263 --beta 1"; do
        device_late run "$args" && continue
        w=${args%% *} pdl=
        [ "$w" = pdl ] && pdl=1
        [ "$w" = auto ] || [ "$w" = pdl ] && w=
        # shellcheck disable=SC2086
        echo "run $args: $(CUTEC_GEMM_SM80_PDL=$pdl CUTEC_GEMM_SM80_PERSISTENT=$w timeout 15 build/cutec run gemm --backend cuda \
            --variant tensorop_smem --dtype s8 $T128 ${args#* } 2>&1 | grep -iE "verified|wrong|rror|fail" |
            head -2 | tr '\n' ' ')"
    done
    echo "== 2. at $(($(date +%s) - start)) s: bench mma s8 (this run's ceiling; 1,247.5-1,258.8 before)"
    device_late mma || timeout 15 build/cutec bench mma --dtypes s8 --iters 3 2>&1 | grep -E "^s8" | tee "$out/s16-mma.txt"
    echo "== 3. at $(($(date +%s) - start)) s: the rounds ($ROUNDS)"
    for w in auto static dynamic; do
        if [ "$w" = auto ]; then
            BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes "$ROUNDS" $T128 >"$out/s16-rounds-$w.txt"
        else
            CUTEC_GEMM_SM80_PERSISTENT=$w BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes "$ROUNDS" \
                --schedule persistent $T128 >"$out/s16-rounds-$w.txt"
        fi
        echo "$w:" && cat "$out/s16-rounds-$w.txt"
    done
    echo "== 4. at $(($(date +%s) - start)) s: the rounds without C's traffic (nostore: wrong by design)"
    CUTEC_GEMM_SM80_DIAG=nostore BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes "$ROUNDS" $T128 \
        >"$out/s16-rounds-nostore.txt"
    cat "$out/s16-rounds-nostore.txt"
    echo "== 5. at $(($(date +%s) - start)) s: PDL against the plain launch, 4096^3 and 8192^3, two pairs"
    for i in 1 2; do
        BENCH_TIMEOUT=25 device_bench_gemm --dtype s8 --layout tn --sizes 4096,8192 >"$out/s16-plain$i.txt"
        CUTEC_GEMM_SM80_PDL=1 BENCH_TIMEOUT=25 device_bench_gemm --dtype s8 --layout tn --sizes 4096,8192 \
            >"$out/s16-pdl$i.txt"
        echo "plain:" && cat "$out/s16-plain$i.txt" && echo "pdl:" && cat "$out/s16-pdl$i.txt"
    done
    echo "== 6. ptxas sm_90a"
    for w in auto pdl static dynamic; do
        s= pdl=
        [ "$w" = pdl ] && pdl=1
        [ "$w" = auto ] || [ "$w" = pdl ] || s="--schedule persistent"
        # shellcheck disable=SC2086
        echo "$w: $(CUTEC_GEMM_SM80_PDL=$pdl CUTEC_GEMM_SM80_PERSISTENT=$([ -n "$s" ] && echo $w) CUTEC_NO_CACHE=1 timeout 10 build/cutec \
            compile gemm --dtype s8 --variant tensorop_smem --layout tn --arch sm_90a $T128 $s --emit usage 2>&1 |
            grep -E 'registers|spill|rror' | tr '\n' ' ')"
    done

    echo "== the rounds' fits (t = c + r d over 1, 2, 4 rounds of 264 tiles at K 4096)"
    rounds_fit "a block a tile" "$out/s16-rounds-auto.txt" tensorop_smem
    for w in static dynamic; do rounds_fit "persistent $w" "$out/s16-rounds-$w.txt" tensorop_smem; done
    rounds_fit "a block a tile, nostore (C's traffic 1/32)" "$out/s16-rounds-nostore.txt" tensorop_smem
    echo "== decisions"
    ceiling=$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "TOPS") { print $i; exit } }' "$out/s16-mma.txt" 2>/dev/null)
    ceiling=${ceiling:-1250}
    a4=$(bench_tops "$out/s16-plain1.txt" tensorop_smem)
    echo "AUTO 4096^3: ${a4:-none} TOPS of the $ceiling TOPS ceiling"
    # points FILE N: the N-th tensorop_smem row's TOPS in points of the ceiling
    points() { awk -v n="$2" -v c="$ceiling" '$2 ~ /tensorop_smem/ && $4 ~ /^[0-9.]+$/ { if (++i == n) { printf("%.2f", 100 * $4 / c); exit } }' "$1"; }
    lead=0 lost=0 behind8=0
    for i in 1 2; do
        p4=$(points "$out/s16-plain$i.txt" 1) q4=$(points "$out/s16-pdl$i.txt" 1)
        p8=$(points "$out/s16-plain$i.txt" 2) q8=$(points "$out/s16-pdl$i.txt" 2)
        echo "pair $i: 4096^3 plain ${p4:-none} / PDL ${q4:-none} points; 8192^3 ${p8:-none} / ${q8:-none}"
        lead=$((lead + $(awk -v a="$p4" -v b="$q4" 'BEGIN { print (a != "" && b != "" && b - a >= 1.0) ? 1 : 0 }')))
        lost=$((lost + $(awk -v a="$p4" -v b="$q4" 'BEGIN { print (a != "" && b != "" && a - b >= 0.3) ? 1 : 0 }')))
        behind8=$((behind8 + $(awk -v a="$p8" -v b="$q8" 'BEGIN { print (a == "" || b == "" || a - b >= 0.3) ? 1 : 0 }')))
    done
    if [ "$lead" -eq 2 ] && [ "$behind8" -eq 0 ]; then
        echo "decides: PDL the SM80 block a tile's default (plan_multistage.c dependent_launch: by_default = 1)"
    elif [ "$lost" -eq 2 ]; then
        echo "decides: PDL on the SM80 kernel deleted (behind in both 4096^3 pairs)"
    else
        echo "decides: PDL on the SM80 kernel stays opt-in (CUTEC_GEMM_SM80_PDL=1)"
    fi
    echo "decides: CUTEC_GEMM_SM80_DIAG=nostore stays a diagnostic (what C's stores cost a round: the fits above)"
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
