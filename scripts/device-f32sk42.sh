#!/bin/sh
# Branch f32sk42's final pass on one H200 (issue 17: f32's skinny GEMM at 8192x8192, 85% of the
# device copy and torch.mm's speed), under 50 s of GPU work after the lead's `make all tests`
# (nothing is built here); log $OUT/f32sk42.log.
# The mid pass (16:04-16:07 UTC, bench/RESULTS.md, f32sk42) made three forms the defaults; each
# variable gives the old form back (its emitted CUDA the same as main's, by md5) until this pass:
#   k pairs (CUTEC_GEMV_F32_KPAIR=1; old: 0): f32's ring in blocks of 8 warps on 64 rows, two k
#     groups each on its half of every 64-column k-tile, their sums added in shared memory; one
#     block an SM, one split at 8192 rows (8 vectors 94.1 / 94.1% of the copy, 95.4 with chains,
#     against 82.2 / 81.9; 16 vectors 92.2 against 88.0, one turn);
#   chains (CUTEC_GEMV_F32_CHAINS=3; old: 1): mma.sync's 3xTF32 products summed apart (8 vectors in
#     the old 2 splits 83.1 / 83.3; blocks of 4 warps in one split with them 95.8 / 95.9);
#   wgmma's A ring (CUTEC_GEMV_WGMMA_RING=6; old: 0): 64 vectors 65.2 / 65.5 against 63.4 / 63.4.
# Steps: (1) the defaults on the GPU against float64 (`cutec run gemv`, every element; odd sizes,
# split K ordered and atomic, a batch, the block past A's last row, the register form at 24
# vectors), side by side in the background; (2) 8 vectors: default / old / blocks of 4 warps
# with chains in one split (the mid pass's 95.85) / default / old; (3) 16 vectors: default /
# old, twice; (4) 64 vectors: default / old, twice; (5) ncu on the 64-vector default's kernel
# (SpeedOfLight, WarpStateStats, ComputeWorkloadAnalysis: where it waits; only if started 10 s
# before the budget's end, 15 s at most), after 64 vectors solo (a ring of 4 in blocks of one
# warpgroup, two an SM) and deep (two batches left running, not one: three places a step, X's
# halves in four stages); (6) a ring of 4, 16 vectors in k pairs without chains. torch.mm is the
# mid pass's (f32, TF32 off: 0.1705 / 0.1860 / 0.2546 ms at 8 / 16 / 64 rows).
# Each timed row is its own process (% of a device copy of the same bytes, y checked against
# float64 first). No step starts past $BUDGET (50) s; each process under 12 s.
# The rule per row (points of the copy, d = default - old over the two turns, d1 d2 each turn's):
# a failed check or WRONG row -> "revert (wrong)"; d >= 1 and d1, d2 > 0 -> "confirmed (delete
# the variable)"; d <= -1 -> "revert"; else "within the spread (keep)"; then 85% and torch.mm's
# time, met or not; the 4-warp one-split form "better" where it leads the default by >= 1 in both
# turns.
#   BUDGET=50 sh scripts/device-f32sk42.sh
. scripts/device-common.sh
log="$out/f32sk42.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=12
S=8192x8192
OLD8=CUTEC_GEMV_F32_KPAIR=0+CUTEC_GEMV_F32_CHAINS=1
OLD64=CUTEC_GEMV_WGMMA_RING=0
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
# check I ENV ARGS...: `cutec run gemv --dtype f32 ARGS` with ENV (NAME=VALUE, or "-": the
# defaults) on the GPU into $out/f32sk42.run.I, in the background; checked I...: each one's
# verdict, false unless every one verified
check()
{
    i=$1 e=$2
    shift 2
    echo "run $e gemv --dtype f32 $*" >"$out/f32sk42.run.$i"
    if [ "$e" = - ]; then
        timeout 20 build/cutec run gemv --dtype f32 "$@" >>"$out/f32sk42.run.$i" 2>&1 &
    else
        env "$e" timeout 20 build/cutec run gemv --dtype f32 "$@" >>"$out/f32sk42.run.$i" 2>&1 &
    fi
}
checked()
{
    ok=0
    for i in "$@"; do
        f="$out/f32sk42.run.$i"
        echo "$(head -n 1 "$f"): $(tail -n 1 "$f")"
        grep -qE "verified against float64 \(0 wrong" "$f" || { echo "   ^ FAILED"; ok=1; }
    done
    return $ok
}
# decide NAME BAD D1 O1 D2 O2 MS TORCH: the rule's line for the default (D1, D2) against the old
# form (O1, O2), its time MS against torch.mm's TORCH (the mid pass's, same card and clock)
decide()
{
    awk -v f="decides: $1" -v bad="$2" -v a1="$3" -v o1="$4" -v a2="$5" -v o2="$6" -v ms="$7" -v tm="$8" 'BEGIN {
        if (bad != "" || a1 o1 a2 o2 ~ /W/) { print f ": revert (wrong)"; exit }
        if (a1 == "" || o1 == "" || a2 == "" || o2 == "") { print f ": not timed (keep, the variable too)"; exit }
        d1 = a1 - o1; d2 = a2 - o2; d = (d1 + d2) / 2; a = (a1 + a2) / 2; o = (o1 + o2) / 2
        v = d >= 1 && d1 > 0 && d2 > 0 ? "confirmed (delete the variable)" : d <= -1 ? "revert" : "within the spread (keep)"
        printf "%s: %s (%+.2f points: the default %.2f%% of the copy against the old form'"'"'s %.2f; by turn %+.2f %+.2f;", f, v, d, a, o, d1, d2
        printf " 85%%: %s; torch.mm: %s)\n", (a >= 85 ? "met" : "not met"),
            (ms == "" || tm == "" ? "not timed" : sprintf("%.4f ms against %.4f, %.2fx", ms, tm, tm / ms)) }'
}
# suggest NAME BASE1 TRY1 BASE2 TRY2: an exploration against the default (one or two turns)
suggest()
{
    awk -v f="decides: $1 (suggests)" -v b1="$2" -v t1="$3" -v b2="${4:-}" -v t2="${5:-}" 'BEGIN {
        if (b1 == "" || t1 == "") { print f ": not timed"; exit }
        if (t1 t2 ~ /W/) { print f ": WRONG"; exit }
        both = b2 != "" && t2 != ""; d1 = t1 - b1; d2 = both ? t2 - b2 : d1
        printf "%s: %s (%.2f against the default'"'"'s %.2f%s)\n", f, (d1 >= 1 && d2 >= 1 ? "better" : "no better"),
            both ? (t1 + t2) / 2 : t1, both ? (b1 + b2) / 2 : b1, both ? sprintf("; by turn %+.2f %+.2f", d1, d2) : "" }'
}
# torch_ms M: torch.mm's ms at M x 8192 x 8192, f32, TF32 off (the mid pass, 16:04-16:07 UTC, an
# H200 at 1980 MHz; scripts/device-census17.sh times it again beside the defaults)
torch_ms() { case $1 in 8) echo 0.1705 ;; 16) echo 0.1860 ;; 64) echo 0.2546 ;; esac; }
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== the defaults on the GPU against float64 $(el_s)"
        check 1 - --shape 1000x2056 --vectors 8
        check 2 - --shape 1000x1000 --vectors 16 --splits 3
        check 3 - --shape 520x2056 --vectors 8 --splits 2 --reduction atomic
        check 4 - --shape 264x1040 --vectors 16 --batch 2
        check 5 - --shape 1000x1000 --vectors 24
        check 6 - --shape 1000x2056 --vectors 64
        check 7 - --shape 1024x1000 --vectors 64 --splits 2
        check 8 - --shape 1000x2056 --vectors 32 --splits 3
        check 9 - --shape 1024x2056 --vectors 128 --splits 2
        check 10 - --shape 520x2056 --vectors 48 --reduction atomic
        check 11 CUTEC_GEMV_WGMMA_RING=deep --shape 1000x2056 --vectors 64 --splits 2
        check 12 CUTEC_GEMV_WGMMA_RING=solo --shape 1000x2056 --vectors 64
        wait
        checked 1 2 3 4 5 || bad8=1
        checked 6 7 8 9 10 || bad64=1
        checked 11 12 || badE=1
        echo "== 8 vectors: default / old / 4 warps with chains in one split / default / old $(el_s)"
        pct_of 8 - && d8a=$pct d8ms=$ms
        pct_of 8 $OLD8 && o8a=$pct
        pct_of 8 CUTEC_GEMV_F32_KPAIR=0 --splits 1 && q8a=$pct
        pct_of 8 - && d8b=$pct
        pct_of 8 $OLD8 && o8b=$pct
        echo "== 16 vectors: default / old, twice $(el_s)"
        pct_of 16 - && d16a=$pct d16ms=$ms
        pct_of 16 $OLD8 && o16a=$pct
        pct_of 16 - && d16b=$pct
        pct_of 16 $OLD8 && o16b=$pct
        echo "== 64 vectors: default / old, twice $(el_s)"
        pct_of 64 - && d64a=$pct d64ms=$ms
        pct_of 64 $OLD64 && o64a=$pct
        pct_of 64 - && d64b=$pct
        pct_of 64 $OLD64 && o64b=$pct
        echo "== explorations $(el_s)"
        pct_of 64 CUTEC_GEMV_WGMMA_RING=solo && s64=$pct
        pct_of 64 CUTEC_GEMV_WGMMA_RING=deep && e64=$pct
        if [ "$(el)" -le $((budget - 10)) ]; then
            ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
            if [ -n "$ncu" ]; then
                echo "-- ncu on the 64-vector default's kernel $(el_s)"
                timeout 15 "$ncu" --clock-control none --target-processes all -k regex:mma_kernel --launch-count 1 \
                    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
                    build/cutec bench gemv --dtype f32 --shape $S --vectors 64 --iters 2 >"$out/f32sk42.ncu64" 2>&1
                grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A|SM Busy|Stall|stalled|spends|highest|[Pp]ipeline|utiliz|==PROF==|rror" \
                    "$out/f32sk42.ncu64" | cut -c1-260 | head -n 30
            else
                echo "-- ncu: none here"
            fi
        fi
        pct_of 64 CUTEC_GEMV_WGMMA_RING=4 && r64=$pct
        pct_of 16 CUTEC_GEMV_F32_CHAINS=1 && u16=$pct
        echo "== at $(el) s: % of the copy, f32 $S: 8 vectors default ${d8a:-} / ${d8b:-} (${d8ms:-?} ms), old ${o8a:-} / ${o8b:-}," \
            "4 warps with chains in one split ${q8a:-}; 16 vectors default ${d16a:-} / ${d16b:-} (${d16ms:-?} ms)," \
            "old ${o16a:-} / ${o16b:-}, without chains ${u16:-}; 64 vectors default ${d64a:-} / ${d64b:-} (${d64ms:-?} ms)," \
            "old ${o64a:-} / ${o64b:-}, solo ${s64:-}, deep ${e64:-}, a ring of 4 ${r64:-}"
        decide "8 vectors, k pairs with chains (CUTEC_GEMV_F32_KPAIR, _CHAINS)" "${bad8:-}" "${d8a:-}" "${o8a:-}" "${d8b:-}" "${o8b:-}" "${d8ms:-}" "$(torch_ms 8)"
        decide "16 vectors, k pairs with chains (CUTEC_GEMV_F32_KPAIR, _CHAINS)" "${bad8:-}" "${d16a:-}" "${o16a:-}" "${d16b:-}" "${o16b:-}" "${d16ms:-}" "$(torch_ms 16)"
        decide "64 vectors, wgmma's A ring of 6 (CUTEC_GEMV_WGMMA_RING)" "${bad64:-}" "${d64a:-}" "${o64a:-}" "${d64b:-}" "${o64b:-}" "${d64ms:-}" "$(torch_ms 64)"
        suggest "8 vectors, blocks of 4 warps with chains in one split" "$(mean2 "${d8a:-}" "${d8b:-}")" "${q8a:-}"
        suggest "16 vectors, k pairs without chains" "${d16a:-}" "${u16:-}"
        [ -n "${badE:-}" ] && s64=W e64=W
        suggest "64 vectors, solo" "$(mean2 "${d64a:-}" "${d64b:-}")" "${s64:-}"
        suggest "64 vectors, deep (two batches left running)" "$(mean2 "${d64a:-}" "${d64b:-}")" "${e64:-}"
        suggest "64 vectors, a ring of 4" "$(mean2 "${d64a:-}" "${d64b:-}")" "${r64:-}"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: 8 vectors, k pairs with chains: keep (no GPU)"
        echo "decides: 16 vectors, k pairs with chains: keep (no GPU)"
        echo "decides: 64 vectors, wgmma's A ring of 6: keep (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 120
