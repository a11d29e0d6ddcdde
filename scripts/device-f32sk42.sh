#!/bin/sh
# Branch f32sk42's mid pass on one H200 (issue 17: f32's skinny GEMM at 8192x8192 with 8 and 64
# vectors, 85% of the device copy), under 50 s of GPU work after the lead's `make all tests`
# (nothing is built here); log $OUT/f32sk42.log.
# Four opt-in trials (bench/RESULTS.md, f32sk42; docs/gemv.md, "Trials of session 42"):
#   CUTEC_GEMV_WGMMA_RING=6 (also 4): the wgmma form (64 vectors) with each thread's A and X
#     vectors through a cp.async ring of shared memory (5 x 16 KB of A in flight an SM) instead
#     of registers two k-tiles ahead (32 KB: ~61% of the copy by Little's law, 63.3 measured);
#   CUTEC_GEMV_F32_CHAINS=3: mma.sync's 3xTF32 (8 and 16 vectors, the ring of 4 warps) with each
#     product summed apart, three dependent chains of mma.sync a vector atom, not one of twelve;
#   CUTEC_GEMV_F32_KTILE=64: the same ring in k-tiles of 64 columns, not 32 (256 contiguous bytes
#     of each row a warp's k-tile; 4 stages at 8 vectors, 3 at 16);
#   CUTEC_GEMV_F32_KPAIR=1: the same ring in blocks of 8 warps on 64 rows, two k groups of 4 each
#     on its half of every 64-column k-tile (warps (4,1,2)), their sums added in shared memory at
#     the end: one block an SM, one split at 8192 rows (no second kernel, 8,192 rows read at once
#     in 256-byte pieces, not 16,384 in 128), 8 warps an SM for 3xTF32's work.
# Steps: (1) `cutec run gemv` of each trial on the GPU against float64 (every element), odd
# sizes, split K, the block past A's last row, side by side in the background (nothing timed
# meanwhile); (2) 64 vectors: default / ring 6 / default / ring 6, each its own process (% of a
# device copy of the same bytes, y checked against float64 first); (3) 8 vectors: default /
# k pairs / chains in one split (128 blocks of 4 warps, one an SM: no second kernel, half the
# rows read at once; chains shorten a warp's k-tile where one warp a scheduler must carry it) /
# chains, twice; (4) torch.mm f32 at 8, 16 and 64 rows (TF32 off, PyTorch's default); (5) if
# time is left: 16 vectors default / k pairs, 8 vectors in k pairs with chains, 64 vectors
# through a ring of 4 (8 do not fit beside X's halves: 6) and solo (a ring of 4 in blocks of one
# warpgroup, two an SM: no barrier between warpgroups), 16 vectors with chains in one split,
# 8 vectors wide, wide with chains in one split, 16 vectors with chains.
# No step starts past $BUDGET (50) s; each process under 12 s (20 for the checks).
# The rule, per trial: a failed check or a WRONG row -> "revert (wrong)"; d = trial - default
# (points of the copy, the mean of the two turns each, d1 d2 each turn's): d >= 1 and d1, d2 > 0
# -> "default (wins)"; else "delete (no gain)"; 85% met or not for the better of the two; the
# explorations print what they suggest.
#   BUDGET=50 sh scripts/device-f32sk42.sh
. scripts/device-common.sh
log="$out/f32sk42.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=12
S=8192x8192
# pct_of N ENV [ARGS...]: the bench row of f32 at $S with N vectors, ENV (NAME=VALUE, several
# joined by +, or "-") set, into $pct ("" skipped or failed, "W" wrong) and $ms; $row the row
pct_of()
{
    n=$1 e=$2
    shift 2
    pct='' ms=''
    budget_left || { echo "-- skipped (past BUDGET): x$n $e $*"; return 0; }
    echo "-- f32 $S x$n $e $* $(el_s)"
    if [ "$e" = - ]; then
        row=$(device_gemv --dtype f32 --shape $S --vectors "$n" "$@" | tail -n 1)
    else
        row=$(for v in $(echo "$e" | tr + ' '); do export "${v?}"; done
            device_gemv --dtype f32 --shape $S --vectors "$n" "$@" | tail -n 1)
    fi
    echo "$row"
    case "$row" in *WRONG*) pct=W ;; *) pct=$(copy_pct "$row") ;; esac
    ms=$(echo "$row" | awk '/%$/ { print $(NF - 3) }')
}
# check I ENV ARGS...: `cutec run gemv --dtype f32 ARGS` with ENV set, on the GPU, into
# $out/f32sk42.run.I, in the background; checked I...: each one's verdict, false unless every
# one verified
check()
{
    i=$1 e=$2
    shift 2
    echo "run $e gemv --dtype f32 $*" >"$out/f32sk42.run.$i"
    env "$e" timeout 20 build/cutec run gemv --dtype f32 "$@" >>"$out/f32sk42.run.$i" 2>&1 &
}
checked()
{
    wait
    ok=0
    for i in "$@"; do
        f="$out/f32sk42.run.$i"
        echo "$(head -n 1 "$f"): $(tail -n 1 "$f")"
        grep -qE "verified against float64 \(0 wrong" "$f" || { echo "   ^ FAILED"; ok=1; }
    done
    return $ok
}
# decide NAME BAD A1 T1 A2 T2: the rule's line for a trial (T1, T2) against the default (A1, A2)
decide()
{
    awk -v f="decides: $1" -v bad="$2" -v a1="$3" -v t1="$4" -v a2="$5" -v t2="$6" 'BEGIN {
        if (bad != "" || a1 t1 a2 t2 ~ /W/) { print f ": revert (wrong)"; exit }
        if (a1 == "" || t1 == "" || a2 == "" || t2 == "") { print f ": not timed (keep opt-in, time it again)"; exit }
        d1 = t1 - a1; d2 = t2 - a2; d = (d1 + d2) / 2; t = (t1 + t2) / 2; a = (a1 + a2) / 2
        printf "%s: %s (%+.2f points: %.2f%% of the copy against the default'"'"'s %.2f; by turn %+.2f %+.2f; 85%%: %s)\n", f,
            (d >= 1 && d1 > 0 && d2 > 0 ? "default (wins)" : "delete (no gain)"), d, t, a, d1, d2,
            ((t > a ? t : a) >= 85 ? "met" : "not met") }'
}
# suggest NAME BASE TRY: what an exploration suggests against BASE
suggest()
{
    awk -v f="decides: $1 (suggests)" -v b="$2" -v t="$3" 'BEGIN {
        if (b == "" || t == "") print f ": not timed"; else if (t ~ /W/) print f ": WRONG"
        else printf "%s: %s (%.2f against %.2f)\n", f, (t - b >= 1 ? "better" : "no better"), t, b }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        R=CUTEC_GEMV_WGMMA_RING=6 C=CUTEC_GEMV_F32_CHAINS=3 W=CUTEC_GEMV_F32_KTILE=64 P=CUTEC_GEMV_F32_KPAIR=1
        echo "== the trials on the GPU against float64 $(el_s)"
        check 1 $R --shape 1000x2056 --vectors 64
        check 2 $R --shape 1024x1000 --vectors 64 --splits 2
        check 3 $R --shape 1000x2056 --vectors 32 --splits 3
        check 4 $R --shape 520x1032 --vectors 48
        check 5 CUTEC_GEMV_WGMMA_RING=8 --shape 1024x2056 --vectors 128 --splits 2
        check 6 CUTEC_GEMV_WGMMA_RING=4 --shape 1000x2056 --vectors 64 --reduction atomic
        check 17 CUTEC_GEMV_WGMMA_RING=solo --shape 1000x2056 --vectors 64 --splits 2
        check 7 $C --shape 1000x2056 --vectors 8
        check 8 $C --shape 1000x2056 --vectors 16 --splits 3
        check 9 $C --shape 1000x2056 --vectors 8 --splits 1
        check 10 $C --shape 1000x1000 --vectors 24 --smem-stages 0
        check 11 $W --shape 1000x2056 --vectors 8
        check 12 $W --shape 1000x1000 --vectors 16 --splits 3
        check 13 $W --shape 520x2056 --vectors 8 --splits 2 --reduction atomic
        check 14 $P --shape 1000x2056 --vectors 8
        check 15 $P --shape 1000x1000 --vectors 16 --splits 3
        check 16 $P --shape 520x2056 --vectors 8 --splits 2 --reduction atomic
        checked 1 2 3 4 5 6 17 || badR=1
        checked 7 8 9 10 || badC=1
        checked 11 12 13 || badW=1
        checked 14 15 16 || badP=1
        echo "== 64 vectors: default / ring 6 / default / ring 6 $(el_s)"
        pct_of 64 - && d64a=$pct d64ams=$ms
        pct_of 64 $R && r64a=$pct r64ams=$ms
        pct_of 64 - && d64b=$pct
        pct_of 64 $R && r64b=$pct
        echo "== 8 vectors: default / k pairs / chains in one split / chains, twice $(el_s)"
        pct_of 8 - && d8a=$pct d8ams=$ms
        pct_of 8 $P && p8a=$pct p8ams=$ms
        pct_of 8 $C --splits 1 && o8a=$pct o8ams=$ms
        pct_of 8 $C && c8a=$pct c8ams=$ms
        pct_of 8 - && d8b=$pct
        pct_of 8 $P && p8b=$pct
        pct_of 8 $C --splits 1 && o8b=$pct
        pct_of 8 $C && c8b=$pct
        echo "== torch.mm f32, K 8192 (TF32 off) $(el_s)"
        budget_left && (cd bench && timeout 15 python3 -c '
import torch
from torch_timing import median_ms
torch.backends.cuda.matmul.allow_tf32 = False
for m in (8, 16, 64):
    A = torch.rand(m, 8192, device="cuda", dtype=torch.float32) * 4 - 2
    B = torch.rand(8192, 8192, device="cuda", dtype=torch.float32) * 4 - 2
    ms = median_ms(lambda: torch.mm(A, B.t()))
    print(f"torch.mm f32 {m}x8192x8192: {ms:.4f} ms {((m + 8192) * 8192 + m * 8192) * 4 / ms / 1e6:8.1f} GB/s")
' 2>&1 | tail -n 3)
        echo "== explorations $(el_s)"
        pct_of 16 - && d16=$pct
        pct_of 16 $P && p16=$pct
        pct_of 8 "$P+$C" && pc8=$pct
        pct_of 64 CUTEC_GEMV_WGMMA_RING=4 && r64r4=$pct
        pct_of 64 CUTEC_GEMV_WGMMA_RING=solo && r64s=$pct
        pct_of 16 $C --splits 1 && o16=$pct
        pct_of 8 $W && w8=$pct
        pct_of 8 "$C+$W" --splits 1 && wo8=$pct
        pct_of 16 $C && c16=$pct
        echo "== at $(el) s: % of the copy, f32 $S: 64 vectors default ${d64a:-} / ${d64b:-} (${d64ams:-?} ms)," \
            "ring 6 ${r64a:-} / ${r64b:-} (${r64ams:-?} ms), ring 4 ${r64r4:-}, solo ${r64s:-};" \
            "8 vectors default ${d8a:-} / ${d8b:-} (${d8ams:-?} ms), chains ${c8a:-} / ${c8b:-} (${c8ams:-?} ms)," \
            "k pairs ${p8a:-} / ${p8b:-} (${p8ams:-?} ms), chains in one split ${o8a:-} / ${o8b:-} (${o8ams:-?} ms)," \
            "k pairs with chains ${pc8:-}, wide ${w8:-}, wide with chains in one split ${wo8:-}; 16 vectors default ${d16:-}, k pairs ${p16:-}, chains ${c16:-}, chains in one split ${o16:-}"
        decide "64 vectors through the A ring (CUTEC_GEMV_WGMMA_RING=6)" "${badR:-}" "${d64a:-}" "${r64a:-}" "${d64b:-}" "${r64b:-}"
        decide "8 vectors with three chains (CUTEC_GEMV_F32_CHAINS=3)" "${badC:-}" "${d8a:-}" "${c8a:-}" "${d8b:-}" "${c8b:-}"
        decide "8 vectors with three chains in one split (CUTEC_GEMV_F32_CHAINS=3 --splits 1)" "${badC:-}" "${d8a:-}" "${o8a:-}" "${d8b:-}" "${o8b:-}"
        decide "8 vectors in k pairs (CUTEC_GEMV_F32_KPAIR=1)" "${badP:-}" "${d8a:-}" "${p8a:-}" "${d8b:-}" "${p8b:-}"
        suggest "16 vectors in k pairs" "${d16:-}" "${p16:-}"
        suggest "8 vectors, k pairs with chains against k pairs" "$(mean2 "${p8a:-}" "${p8b:-}")" "${pc8:-}"
        suggest "8 vectors in k-tiles of 64 (${badW:+WRONG in the checks, }CUTEC_GEMV_F32_KTILE=64)" "$(mean2 "${d8a:-}" "${d8b:-}")" "${w8:-}"
        suggest "8 vectors, wide with chains in one split against chains in one split" "$(mean2 "${o8a:-}" "${o8b:-}")" "${wo8:-}"
        suggest "16 vectors, chains in one split" "${d16:-}" "${o16:-}"
        suggest "16 vectors with chains" "${d16:-}" "${c16:-}"
        suggest "64 vectors, a ring of 4 against 6" "$(mean2 "${r64a:-}" "${r64b:-}")" "${r64r4:-}"
        suggest "64 vectors, solo (a ring of 4 in blocks of one warpgroup, two an SM) against a ring of 6" "$(mean2 "${r64a:-}" "${r64b:-}")" "${r64s:-}"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: 64 vectors through the A ring: keep opt-in (no GPU)"
        echo "decides: 8 vectors with three chains: keep opt-in (no GPU)"
        echo "decides: 8 vectors in k pairs: keep opt-in (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 120
