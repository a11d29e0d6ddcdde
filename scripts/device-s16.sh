#!/bin/sh
# Issue 13, s8 x s8 -> s32 tn on the SM80 kernel (mma.sync): what is still undecided of
# engineer s16's forms.  The first pass of 2026-11-28 (H200, bench/RESULTS.md "dec-s8") decided
# the rest: ov2 (256x128x128 in 2 stages, C during the next main loop) and the store overlap
# deleted, CUTEC_GEMM_SM80_DIAG=nostore a diagnostic, the rounds fitted.  Left:
#   pdl  a block a tile as a programmatic dependent launch (CUTEC_GEMM_SM80_PDL=1: each block
#        waits for the stream's previous grid first and lets the next one in): 76.34 / 75.42
#        points of the mma.sync ceiling against AUTO's 75.09 / 74.96 at 4096^3, level at
#        8192^3 (one pair of two past the rule's point), so opt-in; two more pairs here.
# Under 60 s on one H200 after the lead's `make all tests` (BUDGET_S, default 50: a step past
# it prints "skipped").  Logs under $OUT.
#   1. on the GPU against float64 FIRST (every element, exact): s8 tn 2049x2560x400 alpha 3
#      beta -2, AUTO and pdl;
#   2. `cutec bench mma --dtypes s8`: this run's ceiling;
#   3. two pairs at 4096^3 and 8192^3: the library's AUTO (plain), then pdl, each its own
#      process with cuBLAS (cublasGemmEx s8 -> s32).
# The rule ("decides:"), in points of this run's ceiling: pdl 1 point ahead of AUTO at 4096^3
# in both pairs and not 0.3 behind at 8192^3 -> the default (plan_multistage.c
# dependent_launch's `by_default = 0` -> 1); 0.3 behind at 4096^3 in both pairs -> deleted;
# else it stays opt-in.
. scripts/device-common.sh
log="$out/s16.log"
start=$(date +%s)
budget=${BUDGET_S:-50}
iters=${ITERS:-20}

# form NAME CMD...: CMD (a command or a function) in a subshell, pdl's setting for pdl
form()
{
    (
        [ "$1" = pdl ] && export CUTEC_GEMM_SM80_PDL=1
        shift
        "$@"
    )
}

# decide: the "decides:" line from the files under $out (the header's rule)
decide()
{
    echo "== decisions"
    ceiling=$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "TOPS") { print $i; exit } }' "$out/s16-mma.txt" 2>/dev/null)
    ceiling=${ceiling:-1250}
    echo "AUTO 4096^3: $(bench_tops "$out/s16-plain1.txt" tensorop_smem) TOPS of the $ceiling TOPS ceiling"
    # points FILE N: the N-th tensorop_smem row's TOPS in points of the ceiling
    points() { awk -v n="$2" -v c="$ceiling" '$2 ~ /tensorop_smem/ && $4 ~ /^[0-9.]+$/ { if (++i == n) { printf("%.2f", 100 * $4 / c); exit } }' "$1"; }
    lead=0 lost=0 behind8=0 none=0
    for i in 1 2; do
        p4=$(points "$out/s16-plain$i.txt" 1) q4=$(points "$out/s16-pdl$i.txt" 1)
        p8=$(points "$out/s16-plain$i.txt" 2) q8=$(points "$out/s16-pdl$i.txt" 2)
        echo "pair $i: 4096^3 plain ${p4:-none} / pdl ${q4:-none} points; 8192^3 ${p8:-none} / ${q8:-none}"
        lead=$((lead + $(awk -v a="$p4" -v b="$q4" 'BEGIN { print (a != "" && b != "" && b - a >= 1.0) ? 1 : 0 }')))
        lost=$((lost + $(awk -v a="$p4" -v b="$q4" 'BEGIN { print (a != "" && b != "" && a - b >= 0.3) ? 1 : 0 }')))
        none=$((none + $(awk -v a="$p4" -v b="$q4" 'BEGIN { print (a == "" || b == "") ? 1 : 0 }')))
        behind8=$((behind8 + $(awk -v a="$p8" -v b="$q8" 'BEGIN { print (a == "" || b == "" || a - b >= 0.3) ? 1 : 0 }')))
    done
    if [ "$none" -gt 0 ]; then
        echo "decides: PDL on the SM80 kernel stays opt-in (CUTEC_GEMM_SM80_PDL=1): no figures"
    elif [ "$lead" -eq 2 ] && [ "$behind8" -eq 0 ]; then
        echo "decides: PDL the SM80 block a tile's default (plan_multistage.c dependent_launch: by_default = 1)"
    elif [ "$lost" -eq 2 ]; then
        echo "decides: PDL on the SM80 kernel deleted (behind in both 4096^3 pairs)"
    else
        echo "decides: PDL on the SM80 kernel stays opt-in (CUTEC_GEMM_SM80_PDL=1)"
    fi
}

{
    device_begin
    sm80_gpu
    echo "== 1. on the GPU against float64 first (every element)"
    for f in auto pdl; do
        form $f sm80_check "$f" 15 build/cutec run gemm --backend cuda --variant tensorop_smem --dtype s8 \
            --layout tn --m 2049 --n 2560 --k 400 --alpha 3 --beta -2
    done
    echo "== 2. at $(el) s: bench mma s8 (this run's ceiling; 1,247.5-1,258.8 before)"
    sm80_mma | tee "$out/s16-mma.txt"
    echo "== 3. at $(el) s: two pairs at 4096^3 and 8192^3: plain (the library's AUTO), pdl"
    for i in 1 2; do
        for f in plain pdl; do
            BENCH_TIMEOUT=25 form $f device_bench_gemm --dtype s8 --layout tn --sizes 4096,8192 >"$out/s16-$f$i.txt"
            echo "$f:" && cat "$out/s16-$f$i.txt"
        done
    done
    decide
    device_end
} 2>&1 | stdbuf -oL -eL tee "$log"
