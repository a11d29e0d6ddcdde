#!/bin/sh
# Branch f32sk42's final pass on one H200 (issue 17: f32's skinny GEMM at 8192x8192, 85% of the
# device copy and torch.mm's speed), under 50 s of GPU work after the lead's `make all tests`
# (nothing is built here); log $OUT/f32sk42.log.
# The passes before it (bench/RESULTS.md, f32sk42) made k pairs (f32's ring in blocks of two k
# groups, one split at 8192 rows) and wgmma's A ring of 6 the only forms, and chains (f32's 3xTF32
# products summed apart) the default up to 8 vectors only (the second extra pass, 16:53-16:55 UTC,
# in turns: 8 vectors 95.9 / 95.9% of the copy with them against 94.8 / 94.8 without; 16 vectors
# 90.6 / 90.1 with against 91.8 / 91.6 without). CUTEC_GEMV_F32_CHAINS=1|3 (never, always) gives
# the other choice back until this pass confirms the rule.
# Steps: (1) the defaults on the GPU against float64 (`cutec run gemv`, every element; odd sizes,
# split K ordered and atomic, a batch, the block past A's last row, the register form at 24
# vectors, wgmma at 32 to 128) and the other choice at 8 and 16, side by side in the background;
# (2) 8 vectors: default (chains) / CUTEC_GEMV_F32_CHAINS=1, twice; (3) 16 vectors: default (none)
# / CUTEC_GEMV_F32_CHAINS=3, twice; (4) 64, 32 and 128 vectors once each (wgmma's ring), 24
# vectors (mma.sync through registers, no chains now) once.
# Each timed row is its own process (% of a device copy of the same bytes, y checked against
# float64 first). No step starts past $BUDGET (50) s; each process under 12 s.
# The rule at 8 and at 16 vectors (points of the copy, d = default - other choice over the two
# turns, d1 d2 each turn's): a failed check or WRONG row -> "revert (wrong)"; d >= 1 and d1, d2 > 0
# -> "confirmed"; d <= -1 and d1, d2 < 0 -> "revert (the other choice there)"; else "within the
# spread (keep the rule)"; then 85% and torch.mm's time (the mid pass's) for each row.
#   BUDGET=50 sh scripts/device-f32sk42.sh
. scripts/device-common.sh
log="$out/f32sk42.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=12
S=8192x8192
NOCH=CUTEC_GEMV_F32_CHAINS=1 ALLCH=CUTEC_GEMV_F32_CHAINS=3
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
# chains NAME BAD D1 O1 D2 O2 MS TORCH: the rule's line for chains at NAME, the default (D1, D2)
# against the other choice (O1, O2), the default's time MS against torch.mm's TORCH (the mid
# pass's, same card and clock)
chains()
{
    awk -v f="decides: chains at $1" -v bad="$2" -v a1="$3" -v o1="$4" -v a2="$5" -v o2="$6" -v ms="$7" -v tm="$8" 'BEGIN {
        if (bad != "" || a1 o1 a2 o2 ~ /W/) { print f ": revert (wrong)"; exit }
        if (a1 == "" || o1 == "" || a2 == "" || o2 == "") { print f ": not timed (keep the rule)"; exit }
        d1 = a1 - o1; d2 = a2 - o2; d = (d1 + d2) / 2; a = (a1 + a2) / 2; o = (o1 + o2) / 2
        v = d >= 1 && d1 > 0 && d2 > 0 ? "confirmed" : d <= -1 && d1 < 0 && d2 < 0 ? "revert (the other choice there)" : "within the spread (keep the rule)"
        printf "%s: %s (%+.2f points: the default %.2f%% of the copy, the other choice %.2f; by turn %+.2f %+.2f;", f, v, d, a, o, d1, d2
        printf " 85%%: %s; torch.mm: %s)\n", ((a > o ? a : o) >= 85 ? "met" : "not met"),
            (ms == "" || tm == "" ? "not timed" : sprintf("%.4f ms against %.4f, %.2fx", ms, tm, tm / ms)) }'
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
        check 11 $NOCH --shape 1000x2056 --vectors 8
        check 12 $ALLCH --shape 1000x1000 --vectors 16 --splits 3
        wait
        checked 1 2 3 4 5 || bad8=1
        checked 6 7 8 9 10 || bad64=1
        checked 11 12 || bad8=1
        echo "== 8 vectors: default (chains) / without, twice $(el_s)"
        pct_of 8 - && d8a=$pct d8ms=$ms
        pct_of 8 $NOCH && o8a=$pct
        pct_of 8 - && d8b=$pct
        pct_of 8 $NOCH && o8b=$pct
        echo "== 16 vectors: default (no chains) / with, twice $(el_s)"
        pct_of 16 - && d16a=$pct d16ms=$ms
        pct_of 16 $ALLCH && o16a=$pct
        pct_of 16 - && d16b=$pct
        pct_of 16 $ALLCH && o16b=$pct
        echo "== 64, 32, 128 vectors (wgmma's ring), 24 (mma.sync through registers) $(el_s)"
        pct_of 64 - && d64a=$pct d64ms=$ms
        pct_of 32 - && d32=$pct
        pct_of 128 - && d128=$pct
        pct_of 24 - && d24=$pct
        echo "== at $(el) s: % of the copy, f32 $S: 8 vectors default (chains) ${d8a:-} / ${d8b:-} (${d8ms:-?} ms), without ${o8a:-} / ${o8b:-};" \
            "16 vectors default (none) ${d16a:-} / ${d16b:-} (${d16ms:-?} ms), with ${o16a:-} / ${o16b:-};" \
            "64 vectors ${d64a:-} (${d64ms:-?} ms); 32 vectors ${d32:-}, 128 ${d128:-}, 24 ${d24:-}"
        chains "8 vectors (default: with)" "${bad8:-}" "${d8a:-}" "${o8a:-}" "${d8b:-}" "${o8b:-}" "${d8ms:-}" "$(torch_ms 8)"
        chains "16 vectors (default: without)" "${bad8:-}" "${d16a:-}" "${o16a:-}" "${d16b:-}" "${o16b:-}" "${d16ms:-}" "$(torch_ms 16)"
        awk -v f="decides: 64 vectors, wgmma's ring of 6" -v bad="${bad64:-}" -v a="${d64a:-}" -v ms="${d64ms:-}" -v tm="$(torch_ms 64)" 'BEGIN {
            if (bad != "" || a ~ /W/) { print f ": WRONG (revert to the loads in registers)"; exit }
            if (a == "") { print f ": not timed"; exit }
            printf "%s: kept (%.2f%% of the copy; 85%%: %s; torch.mm: %s)\n", f, a, (a >= 85 ? "met" : "not met"),
                (ms == "" ? "not timed" : sprintf("%.4f ms against %.4f, %.2fx", ms, tm, tm / ms)) }'
    else
        echo "== no GPU here: nothing timed"
        echo "decides: chains up to 8 vectors: keep the rule (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 120
