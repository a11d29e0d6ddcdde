#!/bin/sh
# Branch skinny41's pass on one H200 (issue 17: the bf16 skinny GEMM with 64 vectors at 8192x8192,
# 49.3% of the copy in session 40's census, 85% asked), under 50 s of GPU work after the lead's
# `make all tests` (nothing is built here); log $OUT/skinny41.log.
# Form 1: CUTEC_SKINNY_HOPPER=1 runs 32 to 128 vectors of 16-bit K-major A (16-bit y, sm_90, one
# batch, more than 128 rows) on the Hopper GEMM kernel in tiles of 64 rows by the vectors
# (hopper_auto.c's few_columns; src/kernels/gemv/hopper.c), for cutec_gemm and
# cutec_gemv_vectors alike; unset (0), the GEMV kernels' mma.sync form (the default).
# Form 2: CUTEC_GEMV_MMA_PDL=1, the GEMV tensor-core forms' split-K second kernel a dependent
# launch let in as the blocks start (f32 at 8 and 16 vectors: 80.5 / 84.0% of the copy, 2 and
# 3 splits, its plain launch 1.5-3 points of 66 us by count).
# The count (bench/RESULTS.md, skinny41): A 134.2 MB read once, 33 us at the copy's ~4.06 TB/s;
# the mirrored shape (64 tokens as A, the Hopper kernel's few-row tiles) ran 0.0372 ms in session
# 28, ~89% of the copy: predicted 85-90 here, against the default's 49.
# Steps: `cutec run gemv|gemm` with the form on the GPU against float64 at odd sizes (tails in M,
# K and the vectors, the cutec_gemm route); then at 8192x8192 bf16 with 64 vectors default /
# form / default / form, each its own process (`cutec bench gemv`: % of a device copy of the
# same bytes, y checked against float64 first); f32 with 8 and 16 vectors default / form 2; then
# cutec_gemm AUTO at 8192xNx8192, N = 64, 128, 32, form and default (one process each, cuBLAS
# beside, 256 elements checked against float64); the form's 64 x 64 tiles in 2x1 clusters (X's
# k-tiles multicast to two blocks); 32 columns in 64 x 32 tiles; torch.mm at 64x8192x8192 both
# ways round.  No step starts past $BUDGET (44) s, each under 12-20 s.
# The rule (points of the copy, d = form - default in each 64-vector pair): a check failed or a
# WRONG row -> "revert (wrong)"; mean d >= 2 and d > 0 in both -> "make it the default" (at 32 and
# 128 columns each by cutec_gemm's pair: d > 1 -> "default there too", else "GEMV kernels there");
# mean d < -0.5 -> "delete"; else "keep opt-in (within the spread)".  Form 2 by its two pairs (8
# and 16 vectors): mean d >= 0.5 with both ahead -> default, mean d < -0.5 -> delete, else opt-in.
#   BUDGET=44 sh scripts/device-skinny41.sh
. scripts/device-common.sh
log="$out/skinny41.log"
start=$(date +%s)
budget=${BUDGET:-44}
GEMV_TIMEOUT=12
S=8192x8192
# pct_of VAR=V DTYPE N: the bench row at $S DTYPE with N vectors under VAR=V into $pct (""
# skipped or failed, "W" wrong)
pct_of()
{
    echo "-- $1 $2 $S x$3 $(el_s)"
    row=$( (export "${1?}" && device_gemv --dtype "$2" --shape $S --vectors "$3") | tail -n 1)
    echo "$row"
    case "$row" in *WRONG*) pct=W ;; *) pct=$(copy_pct "$row") ;; esac
}
# checked WHAT ARGS...: `cutec run WHAT ARGS` with the form on the GPU, its verdict line; false
# (and "^ FAILED") unless verified
checked()
{
    budget_left || { echo "-- skipped (past BUDGET): run $*"; return 0; }
    w=$1
    shift
    CUTEC_SKINNY_HOPPER=1 timeout 12 build/cutec run "$w" "$@" >"$out/skinny41.run" 2>&1
    echo "run $w $*: $(grep -E "^kernel" "$out/skinny41.run" | tr '\n' ' ')$(tail -n 1 "$out/skinny41.run")"
    grep -qE "verified against float64 \(0 wrong|^verified:" "$out/skinny41.run" || { echo "   ^ FAILED"; return 1; }
}
# gemm_pcts FILE COPY: $pcts, the % of the copy (COPY GB/s) of each `auto` row of a `cutec bench
# gemm` table of 8192xNx8192 bf16 at N = 64, 128, 32 in turn (A, B and C once), "W" where WRONG
gemm_pcts()
{
    # shellcheck disable=SC2034 # (read through eval)
    pcts=$(awk -v cp="$2" 'BEGIN { split("64 128 32", n) } $2 == "auto" { k++; b = (8192 * 8192 + 2 * 8192 * n[k]) * 2
        if (/WRONG|failed|unsupported/) printf "W "; else if (cp > 0) printf "%.1f ", b / $3 / 1e6 / cp * 100 }' "$1")
}
# decide_at N DEFAULT FORM: the rule's line at N vectors from its one pair
decide_at()
{
    awk -v n="$1" -v d="$(diff2 "$3" "$2")" 'BEGIN {
        f = "decides: the form at " n " columns (cutec_gemm; the same route as so many vectors)"
        if (d ~ /W/) { print f ": GEMV kernels there (WRONG)"; exit }
        if (d == "") { print f ": GEMV kernels there (not timed)"; exit }
        printf "%s: %s (%+.2f points)\n", f, (d > 1 ? "default there too" : "GEMV kernels there"), d }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the form on the GPU against float64 $(el_s)"
        checked gemv --dtype bf16 --shape 1000x1032 --vectors 40 || bad=1
        checked gemv --dtype f16 --shape 4104x520 --vectors 128 || bad=1
        checked gemm --dtype bf16 --m 1000 --n 48 --k 1032 --layout tnn --variant auto || bad=1
        echo "== 64 vectors in turns $(el_s)"
        pct_of CUTEC_SKINNY_HOPPER=0 bf16 64 && a1=$pct
        pct_of CUTEC_SKINNY_HOPPER=1 bf16 64 && b1=$pct
        pct_of CUTEC_SKINNY_HOPPER=0 bf16 64 && a2=$pct
        pct_of CUTEC_SKINNY_HOPPER=1 bf16 64 && b2=$pct
        copy=$(echo "$row" | awk '{ for (i = NF; i > 0; i--) if ($i ~ /%$/) { print $(i - 1); exit } }')
        echo "== f32 with 8 and 16 vectors (2 and 3 splits): the second kernel let in as the blocks start $(el_s)"
        pct_of CUTEC_GEMV_MMA_PDL=0 f32 8 && f8a=$pct
        pct_of CUTEC_GEMV_MMA_PDL=1 f32 8 && f8b=$pct
        pct_of CUTEC_GEMV_MMA_PDL=0 f32 16 && f16a=$pct
        pct_of CUTEC_GEMV_MMA_PDL=1 f32 16 && f16b=$pct
        # cutec_gemm AUTO at N = 64, 128, 32 (8192x8192 weight as A), the form and the default in
        # one process each, cuBLAS beside; % of the copy from the gemv rows' copy GB/s
        for h in 1 0; do
            echo "== cutec_gemm AUTO, CUTEC_SKINNY_HOPPER=$h, 8192xNx8192 bf16 N = 64, 128, 32 (C column-major) $(el_s)"
            budget_left || { echo "-- skipped (past BUDGET)"; continue; }
            CUTEC_SKINNY_HOPPER=$h timeout 20 build/cutec bench gemm --dtype bf16 --layout tnn --variants auto \
                --sizes 8192x64x8192,8192x128x8192,8192x32x8192 --iters 20 >"$out/skinny41.gemm$h" 2>&1
            grep -E "^ *[0-9]|rror|refus" "$out/skinny41.gemm$h" | tail -n 6
            gemm_pcts "$out/skinny41.gemm$h" "${copy:-0}"
            eval "g$h=\"\$pcts\""
        done
        echo "== the form's tiles in clusters of 2 along M (X's k-tiles multicast), N = 64 $(el_s)"
        budget_left && timeout 15 build/cutec bench gemm --dtype bf16 --layout tnn --variants hopper --tile 64x64x64 \
            --cluster 2x1 --sizes 8192x64x8192 --iters 20 2>&1 | grep -E "^ *[0-9]|rror|refus" | tail -n 2
        echo "== 32 columns in tiles 32 wide (not 64 with half past N), 8192x32x8192 $(el_s)"
        budget_left && timeout 15 build/cutec bench gemm --dtype bf16 --layout tnn --variants hopper --tile 64x32x64 \
            --sizes 8192x32x8192 --iters 20 2>&1 | grep -E "^ *[0-9]|rror|refus" | tail -n 2
        echo "== torch.mm bf16, K 8192: (64,K) x (8192,K)^T and (8192,K) x (64,K)^T $(el_s)"
        budget_left && (cd bench && timeout 20 python3 -c '
import torch
from torch_timing import median_ms
for m, n in ((64, 8192), (8192, 64)):
    A = torch.rand(m, 8192, device="cuda", dtype=torch.bfloat16) * 4 - 2
    B = torch.rand(n, 8192, device="cuda", dtype=torch.bfloat16) * 4 - 2
    ms = median_ms(lambda: torch.mm(A, B.t()))
    print(f"torch.mm bf16 {m}x{n}x8192: {ms:.4f} ms {((m + n) * 8192 + m * n) * 2 / ms / 1e6:8.1f} GB/s")
' 2>&1 | tail -n 2)
        # shellcheck disable=SC2086 # (the figures as words)
        set -- ${g1:-} && b64=${1:-} b128=${2:-} b32=${3:-}
        # shellcheck disable=SC2086
        set -- ${g0:-} && d64=${1:-} a128=${2:-} a32=${3:-}
        echo "== at $(el) s: % of the copy (copy ${copy:-?} GB/s), bf16 $S: cutec_gemv_vectors 64 vectors default $a1 /" \
            "${a2:-}, form $b1 / ${b2:-}; cutec_gemm N = 64 / 128 / 32: default ${d64:-} / ${a128:-} / ${a32:-}," \
            "form ${b64:-} / ${b128:-} / ${b32:-}; f32 8 vectors ${f8a:-} -> ${f8b:-} with CUTEC_GEMV_MMA_PDL=1," \
            "16 vectors ${f16a:-} -> ${f16b:-}"
        if [ -n "${bad:-}" ]; then
            echo "decides: CUTEC_SKINNY_HOPPER: revert (wrong): a check against float64 above failed"
        else
            awk -v a="$(diff2 "$b1" "$a1")" -v b="$(diff2 "${b2:-}" "${a2:-}")" -v m="$(mean2 "$b1" "${b2:-}")" 'BEGIN {
                f = "decides: CUTEC_SKINNY_HOPPER at 64 vectors"
                if (a ~ /W/ || b ~ /W/) { print f ": revert (WRONG)"; exit }
                if (a == "" || b == "") { print f ": keep opt-in (not timed twice)"; exit }
                d = (a + b) / 2
                v = d >= 2 && a > 0 && b > 0 ? "make it the default" : d < -0.5 ? "delete" : "keep opt-in (within the spread)"
                printf "%s: %s (%+.2f points, pairs %+.2f %+.2f; the form at %s%% of the copy: 85 %s)\n", f, v, d, a, b, m,
                    (m >= 85 ? "met" : "not met") }'
            decide_at 128 "${a128:-}" "${b128:-}"
            decide_at 32 "${a32:-}" "${b32:-}"
        fi
        awk -v a="$(diff2 "${f8b:-}" "${f8a:-}")" -v b="$(diff2 "${f16b:-}" "${f16a:-}")" 'BEGIN {
            f = "decides: CUTEC_GEMV_MMA_PDL (f32, 8 and 16 vectors)"
            if (a ~ /W/ || b ~ /W/) { print f ": revert (WRONG)"; exit }
            if (a == "" || b == "") { print f ": keep opt-in (not timed)"; exit }
            d = (a + b) / 2
            v = d >= 0.5 && a > 0 && b > 0 ? "make it the default" : d < -0.5 ? "delete" : "keep opt-in (within the spread)"
            printf "%s: %s (%+.2f points, 8 vectors %+.2f, 16 %+.2f)\n", f, v, d, a, b }'
    else
        echo "== no GPU here: nothing timed"
        echo "decides: CUTEC_SKINNY_HOPPER at 64 vectors: keep opt-in (no GPU)"
        echo "decides: CUTEC_GEMV_MMA_PDL (f32, 8 and 16 vectors): keep opt-in (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 60
