#!/bin/sh
# Branch skinny41's final pass on one H200 (issue 17: the skinny GEMM at 8192x8192), about 60 s of
# GPU work after the lead's `make all tests` (nothing is built here); log $OUT/skinny41.log.
# The defaults (bench/RESULTS.md, skinny41): 8 to 128 vectors of 16-bit A (16-bit y, sm_90, one
# batch, more than 128 rows, TMA-able operands) on the Hopper GEMM in tiles of 64 rows by 16, 32,
# 64 or 128 (cutec_gemv_vectors and cutec_gemm alike; bf16 64 vectors 90.2 / 90.1% of the copy
# against the GEMV form's 48.7 / 48.8 in the mid pass; 8 to 31 since the final pass); the GEMV
# tensor-core forms' split-K second kernel a dependent launch (f32 8 / 16 vectors 80.3 / 83.2,
# +1.5 / +1.3); f32's ring of 6 at 16 vectors (85.2 in the final pass).
# Steps: (1) `cutec run gemv|gemm` on the GPU against float64 around the route's edges (bf16 and
# f16 at odd sizes, N = 1, 7 (the GEMV kernels), 8, 9, 16, 17, 32, 33, 64, 65, 127 (the route in
# tiles 16, 32, 64, 128 wide; the final pass ran 31 to 128 and 1 to 16 before the route took 8
# on); a y not 16-byte aligned, which
# falls back; f32 split 2 and 3 ways through the dependent launch; cutec_gemm at 32 columns),
# side by side in the background (correctness only: no timing runs meanwhile);
# (2) bf16 8192x8192 with 64 vectors: default / --hopper 0 (the GEMV form) / default, each its own
# process (% of a device copy of the same bytes, y checked against float64 first); (3) the
# census's other skinny rows with the defaults: f32 8 and 16, bf16 32 and 128; (4) torch.mm at
# 8192xNx8192 (the weight as A and as B); (5) for the next step, beside cuBLAS: 128 columns in
# 64x128 tiles in 2x1 clusters and in 128x64 tiles; 8 and 16 columns in 64x16 Hopper tiles
# against the GEMV ring (`cutec bench gemm --variants auto,hopper`); f32 8 and 16 vectors through
# rings of 6 and 3 stages (more or fewer blocks an SM and splits than the default's 8 and 4), and
# f32 8 vectors on the rows kernel's FFMA (--mma-from 9) instead of 3xTF32.
# No step starts past $BUDGET (60) s; each process under 12-20 s.
# The rule: any check or WRONG row -> "revert (wrong)" for its default; the route at 64 vectors,
# d = default - GEMV form (points of the copy, the mean of the two defaults): d >= 2 -> "keep
# (confirmed)", d < -0.5 -> "revert", else "keep (within the spread)"; 85% met or not for each
# census row; the explorations print what they suggest (a form ahead by 2% of the time or more).
#   BUDGET=60 sh scripts/device-skinny41.sh
. scripts/device-common.sh
log="$out/skinny41.log"
start=$(date +%s)
budget=${BUDGET:-60}
GEMV_TIMEOUT=12
S=8192x8192
# pct_of DTYPE N [ARGS...]: the bench row at $S DTYPE with N vectors into $pct ("" skipped or
# failed, "W" wrong), $row the row
pct_of()
{
    d=$1 n=$2
    shift 2
    echo "-- $d $S x$n $* $(el_s)"
    row=$(device_gemv --dtype "$d" --shape $S --vectors "$n" "$@" | tail -n 1)
    echo "$row"
    case "$row" in *WRONG*) pct=W ;; *) pct=$(copy_pct "$row") ;; esac
}
# check I WHAT ARGS...: `cutec run WHAT ARGS` on the GPU into $out/skinny41.run.I, in the
# background (the checks compile their kernels side by side); checked I...: each one's verdict
# line, false (and "^ FAILED") unless every one verified
check()
{
    i=$1
    shift
    echo "run $*" >"$out/skinny41.run.$i"
    timeout 20 build/cutec run "$@" >>"$out/skinny41.run.$i" 2>&1 &
}
checked()
{
    wait
    ok=0
    for i in "$@"; do
        f="$out/skinny41.run.$i"
        echo "$(head -n 1 "$f"): $(grep -E "^kernel" "$f" | tr '\n' ' ')$(tail -n 1 "$f")"
        grep -qE "verified against float64 \(0 wrong|^verified:" "$f" || { echo "   ^ FAILED"; ok=1; }
    done
    return $ok
}
# gemm_rows ARGS...: `cutec bench gemm --dtype bf16 --layout tnn --iters 20 ARGS`'s rows
gemm_rows()
{
    budget_left || { echo "-- skipped (past BUDGET): gemm $*"; return 0; }
    echo "-- bench gemm $* $(el_s)"
    timeout 20 build/cutec bench gemm --dtype bf16 --layout tnn --iters 20 "$@" 2>&1 | grep -E "^ *[0-9]|rror|refus"
}
# meets NAME PCT: "decides: NAME: 85 met|not met (PCT%)", or WRONG / not timed
meets()
{
    awk -v f="$1" -v p="$2" 'BEGIN { if (p ~ /W/) print "decides: " f ": revert (WRONG)"; else if (p == "")
        print "decides: " f ": not timed"; else printf "decides: %s: %s (%.1f%% of the copy)\n", f, (p >= 85 ? "85 met" : "85 not met"), p }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the defaults on the GPU against float64 around the route's edges $(el_s)"
        i=0
        for n in 7 8 17 33 64 65; do i=$((i + 1)) && check $i gemv --dtype bf16 --shape 1000x1032 --vectors $n; done
        for n in 1 9 16 32 127; do i=$((i + 1)) && check $i gemv --dtype f16 --shape 4104x520 --vectors $n; done
        check 12 gemv --dtype bf16 --shape 1004x1032 --vectors 64 # y's columns 2008 bytes apart: the GEMV form
        check 13 gemv --dtype f32 --shape 1000x2056 --vectors 16 --splits 3
        check 14 gemv --dtype f32 --shape 1000x2056 --vectors 64 --splits 2
        check 15 gemm --dtype bf16 --m 1000 --n 32 --k 1032 --layout tnn --variant auto
        checked 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 || bad=1
        echo "== bf16 $S with 64 vectors: default / the GEMV form / default $(el_s)"
        pct_of bf16 64 && a1=$pct
        pct_of bf16 64 --hopper 0 && g1=$pct
        pct_of bf16 64 && a2=$pct
        copy=$(echo "$row" | awk '{ for (i = NF; i > 0; i--) if ($i ~ /%$/) { print $(i - 1); exit } }')
        echo "== the census's other skinny rows, the defaults $(el_s)"
        pct_of f32 8 && f8=$pct
        pct_of f32 16 && f16=$pct
        pct_of bf16 32 && b32=$pct
        pct_of bf16 128 && b128=$pct
        echo "== torch.mm bf16, K 8192 $(el_s)"
        budget_left && (cd bench && timeout 20 python3 -c '
import torch
from torch_timing import median_ms
for m, n in ((8192, 32), (8192, 64), (8192, 128), (64, 8192)):
    A = torch.rand(m, 8192, device="cuda", dtype=torch.bfloat16) * 4 - 2
    B = torch.rand(n, 8192, device="cuda", dtype=torch.bfloat16) * 4 - 2
    ms = median_ms(lambda: torch.mm(A, B.t()))
    print(f"torch.mm bf16 {m}x{n}x8192: {ms:.4f} ms {((m + n) * 8192 + m * n) * 2 / ms / 1e6:8.1f} GB/s")
' 2>&1 | tail -n 4)
        echo "== next steps, beside cuBLAS $(el_s)"
        gemm_rows --variants hopper --tile 64x128x64 --cluster 2x1 --sizes 8192x128x8192
        gemm_rows --variants hopper --tile 128x64x64 --sizes 8192x128x8192
        gemm_rows --variants auto,hopper --tile 64x16x64 --sizes 8192x16x8192,8192x8x8192
        echo "== f32 rings of other depths (more or fewer blocks an SM, other splits) $(el_s)"
        pct_of f32 8 --smem-stages 6 && f8r6=$pct
        pct_of f32 16 --smem-stages 6 && f16r6=$pct
        pct_of f32 16 --smem-stages 3 && f16r3=$pct
        pct_of f32 8 --mma-from 9 && f8rows=$pct
        echo "== at $(el) s: % of the copy (copy ${copy:-?} GB/s), $S: bf16 64 vectors default $a1 / ${a2:-}," \
            "GEMV form ${g1:-}; f32 8 ${f8:-}, 16 ${f16:-}; bf16 32 ${b32:-}, 128 ${b128:-}"
        if [ -n "${bad:-}" ]; then
            echo "decides: the route and the dependent launch: revert (wrong): a check against float64 above failed"
        else
            awk -v a="$(mean2 "$a1" "${a2:-}")" -v g="${g1:-}" 'BEGIN {
                f = "decides: 64 vectors on the Hopper GEMM"
                if (a ~ /W/ || g ~ /W/) { print f ": revert (WRONG)"; exit }
                if (a == "" || g == "") { print f ": keep (not timed)"; exit }
                d = a - g
                printf "%s: %s (%+.2f points: %.2f against the GEMV form'"'"'s %.2f)\n", f,
                    (d >= 2 ? "keep (confirmed)" : d < -0.5 ? "revert" : "keep (within the spread)"), d, a, g }'
        fi
        meets "bf16 64 vectors" "$(mean2 "$a1" "${a2:-}")"
        meets "bf16 32 vectors" "${b32:-}"
        meets "bf16 128 vectors" "${b128:-}"
        meets "f32 8 vectors" "${f8:-}"
        meets "f32 16 vectors" "${f16:-}"
        for x in "8 vectors, a ring of 6:${f8:-}:${f8r6:-}" "16 vectors, a ring of 6:${f16:-}:${f16r6:-}" "16 vectors, a ring of 3:${f16:-}:${f16r3:-}" \
            "8 vectors, FFMA rows kernel (--mma-from 9):${f8:-}:${f8rows:-}"; do
            echo "$x" | awk -F: '{ f = "decides: f32, " $1 " (suggests)"; if ($2 == "" || $3 == "") print f ": not timed"
                else if ($3 ~ /W/) print f ": WRONG"
                else printf "%s: %s (%.1f against the default'"'"'s %.1f)\n", f, ($3 - $2 >= 1 ? "the default there" : "keep the default"), $3, $2 }'
        done
    else
        echo "== no GPU here: nothing timed"
        echo "decides: 64 vectors on the Hopper GEMM: keep (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 80
