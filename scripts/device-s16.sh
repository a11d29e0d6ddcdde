#!/bin/sh
# Engineer s16: issue 13, s8 x s8 -> s32 tn at 4096^3 on the SM80 kernel (mma.sync) toward 80%
# of the mma.sync ceiling (AUTO: 128x128x128, 2x2 warps, 3 stages, a block a tile, two an SM:
# 930-950 TOPS, ~75%).  Candidates, each opt-in:
#   pdl  a block a tile as a programmatic dependent launch (CUTEC_GEMM_SM80_PDL=1: each block
#        waits for the stream's previous grid first and lets the next one in);
#   ov2  256x128x128 on 4x2 warps in 2 stages (96 KB), persistent, one block an SM, C's whole
#        128 KB tile beside the stages leaving during the next tile's main loop (--store
#        overlap): 256x128's main loop (~4% faster a k-tile than the pair's) without its
#        ~7 us a round of C between tiles.  (A 2-stage pipeline: each k-tile is issued right
#        after the barrier that frees its stage and has one k-tile's MMAs, ~0.95 us, to land,
#        where 3 stages give two; 256x128 a block a tile in 2 and 3 stages measures that.)
# And what a round costs: the same tiling at 1, 2 and 4 rounds of 264 tiles (M x 2816 x 4096,
# M = 1536, 3072, 6144) and half a round (768: 132 tiles), a block a tile and s15's dynamic
# persistent kernel, and a block a tile without C's traffic (CUTEC_GEMM_SM80_DIAG=nostore,
# wrong by design: a thread's first run of C stored, 1/32 of the bytes), each fitted t = c + r d.
# Under 90 s on one H200 after the lead's `make all tests` (BUDGET_S, default 75: a step past
# it prints "skipped").  Logs under $OUT.
#   1. on the GPU against float64 FIRST (every element, exact): s8 tn 2049x2560x400 alpha 3
#      beta -2 with AUTO's tiling, pdl, ov2 (180 tiles on 132 blocks) and 256x128x128 in 2
#      stages; ov2 also nt 2560x2049x263 beta 1;
#   2. `cutec bench mma --dtypes s8`: this run's ceiling;
#   3. two pairs at 4096^3 and 8192^3: the library's AUTO (plain), pdl, ov2, each its own
#      process with cuBLAS (cublasGemmEx s8 -> s32);
#   4. the rounds (a block a tile, dynamic, nostore);
#   5. 256x128x128 a block a tile in 3 and 2 stages at 4096^3;
#   6. ptxas sm_90a: registers and spills of AUTO, pdl and ov2.
# The rule ("decides:" lines), in points of this run's mma.sync ceiling: a form leads where it
# is 1 point ahead of AUTO at 4096^3 in both pairs and not behind (by 0.3) at 8192^3 -> the
# library's default (pdl: plan_multistage.c dependent_launch's `by_default = 0` -> 1; ov2:
# lib.c `s8_overlap = false` -> true); behind by 0.3 points at 4096^3 in both pairs -> deleted;
# else it stays opt-in.
. scripts/device-common.sh
log="$out/s16.log"
start=$(date +%s)
budget=${BUDGET_S:-75}
iters=${ITERS:-20}
T128="--tile 128x128x128 --warps 2x2 --stages 3"
OV2="--tile 256x128x128 --warps 4x2 --stages 2 --schedule persistent --store overlap"
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
        printf(" (3.88 rounds: %.1f us)", c + 3.88 * slope)
        if (k != "") printf("; one round at K 8192 %.1f us: %.2f us a k-tile, a round %.1f us past its k-tiles", k, (k - a) / 32, a - 32 * (k - a) / 32 - c)
        printf("\n") }'
}

# form NAME CMD...: CMD (a command or a function) in a subshell under form NAME's settings
# (the others: none; their flags below)
form()
{
    (
        f=$1
        shift
        case $f in
        pdl) export CUTEC_GEMM_SM80_PDL=1 ;;
        dynamic) export CUTEC_GEMM_SM80_PERSISTENT=dynamic ;;
        nostore) export CUTEC_GEMM_SM80_DIAG=nostore ;;
        esac
        "$@"
    )
}
flags()
{
    case $1 in
    ov2) echo "$OV2" ;;
    b2) echo "--tile 256x128x128 --warps 4x2 --stages 2" ;;
    b3) echo "--tile 256x128x128 --warps 4x2 --stages 3" ;;
    dynamic) echo "$T128 --schedule persistent" ;;
    auto | nostore) echo "$T128" ;;
    esac
}

# decide: the "decides:" lines from the files under $out (the header's rule)
decide()
{
    echo "== decisions"
    ceiling=$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "TOPS") { print $i; exit } }' "$out/s16-mma.txt" 2>/dev/null)
    ceiling=${ceiling:-1250}
    echo "AUTO 4096^3: $(bench_tops "$out/s16-plain1.txt" tensorop_smem) TOPS of the $ceiling TOPS ceiling"
    # points FILE N: the N-th tensorop_smem row's TOPS in points of the ceiling
    points() { awk -v n="$2" -v c="$ceiling" '$2 ~ /tensorop_smem/ && $4 ~ /^[0-9.]+$/ { if (++i == n) { printf("%.2f", 100 * $4 / c); exit } }' "$1"; }
    # verdict FORM: lead / lost / keep / none (no figures) by the header's rule, against plain in the same pair
    verdict()
    {
        lead=0 lost=0 behind8=0 none=0
        for i in 1 2; do
            p4=$(points "$out/s16-plain$i.txt" 1) q4=$(points "$out/s16-$1$i.txt" 1)
            p8=$(points "$out/s16-plain$i.txt" 2) q8=$(points "$out/s16-$1$i.txt" 2)
            echo "pair $i, $1: 4096^3 plain ${p4:-none} / $1 ${q4:-none} points; 8192^3 ${p8:-none} / ${q8:-none}" >&2
            lead=$((lead + $(awk -v a="$p4" -v b="$q4" 'BEGIN { print (a != "" && b != "" && b - a >= 1.0) ? 1 : 0 }')))
            lost=$((lost + $(awk -v a="$p4" -v b="$q4" 'BEGIN { print (a != "" && b != "" && a - b >= 0.3) ? 1 : 0 }')))
            none=$((none + $(awk -v a="$p4" -v b="$q4" 'BEGIN { print (a == "" || b == "") ? 1 : 0 }')))
            behind8=$((behind8 + $(awk -v a="$p8" -v b="$q8" 'BEGIN { print (a == "" || b == "" || a - b >= 0.3) ? 1 : 0 }')))
        done
        if [ "$none" -gt 0 ]; then echo none
        elif [ "$lead" -eq 2 ] && [ "$behind8" -eq 0 ]; then echo lead
        elif [ "$lost" -eq 2 ]; then echo lost
        else echo keep
        fi
    }
    case $(verdict pdl) in
    lead) echo "decides: PDL the SM80 block a tile's default (plan_multistage.c dependent_launch: by_default = 1)" ;;
    lost) echo "decides: PDL on the SM80 kernel deleted (behind in both 4096^3 pairs)" ;;
    none) echo "decides: PDL on the SM80 kernel stays opt-in (CUTEC_GEMM_SM80_PDL=1): no figures" ;;
    *) echo "decides: PDL on the SM80 kernel stays opt-in (CUTEC_GEMM_SM80_PDL=1)" ;;
    esac
    case $(verdict ov2) in
    lead) echo "decides: ov2 the library's s8 tiling (lib.c: s8_overlap = true)" ;;
    lost) echo "decides: ov2 (256x128x128, 2 stages, persistent, store overlap) deleted as s8's candidate (behind in both 4096^3 pairs)" ;;
    none) echo "decides: ov2 stays opt-in: no figures" ;;
    *) echo "decides: ov2 stays opt-in (--tile 256x128x128 --warps 4x2 --stages 2 --schedule persistent --store overlap)" ;;
    esac
    echo "decides: CUTEC_GEMM_SM80_DIAG=nostore stays a diagnostic (what C's stores cost a round: the fits above)"
}

{
    device_begin
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "== no GPU here: every GPU step skipped"
        budget=-1
    fi
    echo "== 1. on the GPU against float64 first (every element)"
    for f in auto pdl ov2 b2; do
        for args in "--layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2" "--layout nt --m 2560 --n 2049 --k 263 --beta 1"; do
            [ "$f" != ov2 ] && [ "${args#--layout nt}" != "$args" ] && continue
            device_late run "$f $args" && continue
            # shellcheck disable=SC2086,SC2046
            echo "run $f $args: $(form $f timeout 15 build/cutec run gemm --backend cuda --variant tensorop_smem \
                --dtype s8 $(flags $f) $args 2>&1 | grep -iE "verified|wrong|rror|fail" | head -2 | tr '\n' ' ')"
        done
    done
    echo "== 2. at $(($(date +%s) - start)) s: bench mma s8 (this run's ceiling; 1,247.5-1,258.8 before)"
    device_late mma || timeout 15 build/cutec bench mma --dtypes s8 --iters 3 2>&1 | grep -E "^s8" | tee "$out/s16-mma.txt"
    echo "== 3. at $(($(date +%s) - start)) s: two pairs at 4096^3 and 8192^3: plain (the library's AUTO), pdl, ov2"
    for i in 1 2; do
        for f in plain pdl ov2; do
            fl=
            [ "$f" = ov2 ] && fl=$OV2
            # shellcheck disable=SC2086
            BENCH_TIMEOUT=25 form $f device_bench_gemm --dtype s8 --layout tn --sizes 4096,8192 $fl >"$out/s16-$f$i.txt"
            echo "$f:" && cat "$out/s16-$f$i.txt"
        done
    done
    echo "== 4. at $(($(date +%s) - start)) s: the rounds ($ROUNDS)"
    for f in auto dynamic nostore; do
        # shellcheck disable=SC2046
        BENCH_TIMEOUT=20 form $f device_bench_gemm --dtype s8 --layout tn --sizes $ROUNDS $(flags $f) \
            >"$out/s16-rounds-$f.txt"
        echo "$f:" && cat "$out/s16-rounds-$f.txt"
    done
    echo "== 5. at $(($(date +%s) - start)) s: 256x128x128 a block a tile, 3 and 2 stages, 4096^3"
    for f in b3 b2; do
        # shellcheck disable=SC2046
        BENCH_TIMEOUT=20 device_bench_gemm --dtype s8 --layout tn --sizes 4096 $(flags $f) | tee "$out/s16-$f.txt"
    done
    echo "== 6. ptxas sm_90a"
    for f in auto pdl ov2; do
        # shellcheck disable=SC2046
        echo "$f: $(CUTEC_NO_CACHE=1 form $f timeout 10 build/cutec compile gemm --dtype s8 --variant tensorop_smem \
            --layout tn --arch sm_90a $(flags $f) --emit usage 2>&1 | grep -E 'registers|spill|rror' | tr '\n' ' ')"
    done

    echo "== the rounds' fits (t = c + r d over 1, 2, 4 rounds of 264 tiles at K 4096)"
    rounds_fit "a block a tile" "$out/s16-rounds-auto.txt" tensorop_smem
    rounds_fit "persistent dynamic" "$out/s16-rounds-dynamic.txt" tensorop_smem
    rounds_fit "a block a tile, nostore (C's traffic 1/32)" "$out/s16-rounds-nostore.txt" tensorop_smem
    decide
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
