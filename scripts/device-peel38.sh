#!/bin/sh
# The Hopper GEMM's main loop, one loop over every k-tile hinted CUTE_FOR_PEEL_FIRST (branches
# peel38, peel39; docs/compile_time.md "The first k-tile not peeled"), one GPU, at most about
# 90 s on an H200 after `make all tests`.  The only form since peel39: the PTX backend's first
# tier keeps one copy of the batch, NVRTC's final tier gets the first k-tile apart again, its
# SASS the same instruction for instruction as the peeled form's that peel38's pass measured
# (that form, its CUTEC_GEMM_HOPPER_PEEL and this script's arm for it deleted; the figures in
# bench/RESULTS.md).
# Steps:
#  1. on the GPU against float64 FIRST, each check twice: through the first tier
#     (CUTEC_TIER=1, the final tier held back by an NVRTC option NVRTC refuses: the PTX
#     backend's rolled code runs) and through the final (CUTEC_TIER=0: NVRTC's peeled code);
#     cold, odd M or N, alpha 1.5: cooperative (beta 0), one k-tile under beta (the peeled copy
#     alone), a 2x1 cluster (beta -1), ping-pong (beta 0.5), stream-K with runs;
#  2. the first module cold (CUTEC_NO_CACHE=1, tiers on: `cutec compile --emit time`'s "tiers:
#     the first module" row, wall ms, and the ptxas row's CPU ms), 5 rounds: best and worst;
#  3. `cutec bench gemm --variants hopper` bf16 tn at 4096^3, 8192^3 (its 2x1 cluster) and
#     8192x8192x1024, beta 0, beside cuBLAS (% of cuBLAS), twice.
# Decides nothing to flip: it prints whether every check verified and the first module's best
# against issue 15's 300 ms.
# Past BUDGET_S (90) the remaining steps print "skipped"; without a GPU the GPU steps skip.
# Logs in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/peel38.log"
rows="$out/peel38-bench.txt"
start=$(date +%s) budget=${BUDGET_S:-90}
export CUDA_CACHE_DISABLE=1
gpu=1 bad=0
first="compile gemm --variant hopper --dtype bf16 --m 4096 --n 4096 --k 4096 --emit time"

# `cutec run ARGS` cold, through TIER: "first" (tiers on, the final tier held back by an
# option NVRTC refuses: the first tier's code runs) or "final" (tiers off: NVRTC's code); its
# verdict line (not the "background compile failed" said at exit); one not verified counts bad
tier_verdict() # TIER ARGS...
{
    tier=$1
    shift
    gpu_late run "$tier" "$@" && return
    if [ "$tier" = first ]; then
        set -- env CUTEC_TIER=1 CUTEC_NVRTC_OPTIONS=--no-such-nvrtc-option "$@"
    else
        set -- env CUTEC_TIER=0 "$@"
    fi
    res=$(CUTEC_NO_CACHE=1 timeout 30 "$@" 2>&1)
    line=$(echo "$res" | grep -v "background compile" | grep -iE "verified|wrong|error|fail|refus|bad" | head -n 1 |
        cut -c1-150)
    echo "  $tier tier: $(echo "$*" | sed 's/.*build.cutec run //') -> $line"
    echo "$line" | grep -qi verified || bad=$((bad + 1))
}

{
    device_begin
    compile_gpu_head
    echo "== 1. against float64 first (cold, odd sizes, alpha 1.5): first tier, then final"
    for args in "--dtype bf16 --layout tn --m 1000 --n 1031 --k 520" \
        "--dtype bf16 --layout tnt --m 1001 --n 1032 --k 40 --beta 0.5" \
        "--dtype f16 --layout tnt --m 1001 --n 1032 --k 520 --cluster 2x1 --beta -1" \
        "--dtype bf16 --layout tnt --m 1001 --n 1032 --k 520 --schedule pingpong --beta 0.5" \
        "--dtype f16 --layout tn --m 2040 --n 4100 --k 520 --schedule streamk --beta 0.5"; do
        for tier in first final; do
            # shellcheck disable=SC2086
            tier_verdict $tier build/cutec run gemm --variant hopper $args --alpha 1.5 --seed 38
        done
    done
    echo "== 2. the first module cold (ms)"
    : >"$out/peel38-first.txt"
    for r in 1 2 3 4 5; do
        gpu_late first module && break
        # shellcheck disable=SC2086
        t=$(env CUTEC_NO_CACHE=1 CUTEC_TIER=1 timeout 20 build/cutec $first 2>&1)
        fm=$(echo "$t" | grep "tiers: the first module" | grep -oE "[0-9]+\.[0-9]+" | head -n 2 | tr '\n' ' ')
        px=$(echo "$t" | grep "^ptxas (PTX to cubin)" | grep -oE "[0-9]+\.[0-9]+" | head -n 1)
        # wall, CPU, ptxas's CPU
        echo "${fm:-0 0} ${px:-0}" | awk '{ print $2, $1, $3 }' >>"$out/peel38-first.txt"
    done
    [ "$gpu" = 1 ] && awk '$1 > 0 { if (b == "" || $1 < b) b = $1; if ($1 > w) w = $1; if (p == "" || $3 < p) p = $3; all = all " " $1 }
        END { print "first module: best " b " worst " w " ms wall (" all " ), ptxas " p " ms CPU at best" }' \
        "$out/peel38-first.txt"
    echo "== 3. the GEMM beside cuBLAS (the final tier), beta 0, twice"
    : >"$rows"
    for r in 1 2; do
        gpu_late bench && break
        echo "-- dtype=bf16 round $r at $(el) s" | tee -a "$rows"
        timeout 45 stdbuf -oL -eL build/cutec bench gemm --dtype bf16 --layout tn \
            --variants hopper --sizes 4096,8192,8192x8192x1024 --iters 10 --beta 0 2>&1 | stamp | quiet | tee -a "$rows" |
            grep -E " hopper | cublas |rror|refus"
    done
    if [ "$gpu" = 1 ]; then
        b0=$(awk '$1 > 0 && (b == "" || $1 < b) { b = $1 } END { print b }' "$out/peel38-first.txt")
        wrong=$(grep -E " hopper " "$rows" | grep -vc " ok$")
        if [ "$bad" != 0 ] || [ "$wrong" != 0 ]; then
            echo "decides: a bug to fix first: $bad check(s) not verified, $wrong bench row(s) not ok"
        else
            echo "${b0:-0}" | awk '{ printf "decides: nothing to flip (the only form): every check verified, first module %s ms at best, %s issue 15'"'"'s 300\n", $1, ($1 > 0 && $1 < 300 ? "under" : "not under") }'
        fi
    fi
    device_end
} 2>&1 | tee "$log"
