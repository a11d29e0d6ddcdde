#!/bin/sh
# Branch f32sk43's pass on one H200 (issue 17: f32's skinny GEMM at 64 vectors, 8192x8192, from
# ~65% of the device copy to 85%), under 50 s of GPU work after the lead's `make all tests`
# (nothing is built here); log $OUT/f32sk43.log.
# The mid pass (18:47-18:49 UTC, an H200 at 1980 MHz; /work/notes/mid43/f32sk43.txt) timed, at
# 8192x8192 and 64 vectors, % of the copy in turns: the default 65.4 / 64.9, m2 (each warpgroup
# on two m64 tiles of A, blocks of 256 rows) 71.5 / 71.8, m2xv (X's halves by STS.128) 70.7 /
# 70.2, m2truncxv (and the tf32 halves by truncation) 71.7 / 71.4; 32 vectors: 86.4, m2 84.1. So
# m2 is the default at 64 vectors (xv deleted), `CUTEC_GEMV_WGMMA_TRIAL=m1` the form before.
# ncu on m2truncxv: issue active 22.6%, stalls an issued instruction MIO throttle 2.07, long
# scoreboard 1.42, short 1.35, wait 1.02, barrier 0.58, LG throttle 0.56: the memory queues'
# instructions (xv's 4 cp.async of 8 bytes for X, against 2 of 16, lost more than its 12 fewer
# STS won). So the new trial, bulk: m2's ring filled by bulk copies (cp.async.bulk, 64 bytes
# each, completing on one mbarrier a stage): a thread's copies a k-tile 3 instead of 10; bulkxv,
# with X's halves stored 16 bytes at a time too (xv's 12 fewer STS a thread a k-tile, now that
# X comes by bulk copies: read from the stage by 4 LDS.64 instead of 2 LDS.128).
# This final pass: (1) the default, m1, trunc, bulk and bulkxv on the GPU against float64 (`cutec run
# gemv`, every element; odd sizes, split K ordered and atomic, a batch, the block past A's last
# row, K = 24, 32, 64 and 128 vectors), side by side in the background; (2) 64 vectors: default
# / m1 / trunc / bulk / bulkxv, twice, each its own process (% of a device copy of the same
# bytes, y checked against float64 first); (3) 16384x4096 at 64 vectors: default / m1 / bulk /
# bulkxv; 32 and 128 vectors once.
# The rules (points of the copy at 8192x8192, 64 vectors, d over the two turns, both turns'):
# a chain from m1: the default (m2) kept where it is ahead of m1 by d >= 1 with both turns ahead,
# else m1; then bulk, then bulkxv, each where it is ahead of the kept form the same way; trunc
# judged against the
# default alone (kept only where the kept form is the default and it is ahead of it); a failed
# check or WRONG row rules a form out. Then 85% and torch.mm's time (session 42's mid pass:
# 0.2546 ms) for the kept form.
#   BUDGET=50 sh scripts/device-f32sk43.sh
. scripts/device-common.sh
log="$out/f32sk43.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=12
tag=f32sk43
S=8192x8192
T=CUTEC_GEMV_WGMMA_TRIAL
# against NAME BAD A1 B1 A2 B2: "decides: ..." for form NAME (B) against the form before (A) at 64
# vectors, in points of the copy: d = B - A over the two turns, d1 d2 each turn's; a failed
# check or WRONG row -> "revert (wrong)"; d >= 1 and d1, d2 > 0 -> "ahead"; else "not ahead"
against()
{
    awk -v f="decides: 64 vectors, $1" -v bad="$2" -v a1="$3" -v b1="$4" -v a2="$5" -v b2="$6" 'BEGIN {
        if (bad != "" || a1 b1 a2 b2 ~ /W/) { print f ": revert (wrong)"; exit }
        if (a1 == "" || b1 == "" || a2 == "" || b2 == "") { print f ": not timed in two turns (not ahead)"; exit }
        d1 = b1 - a1; d2 = b2 - a2; d = (d1 + d2) / 2
        printf "%s: d %+.2f (%+.2f, %+.2f) points of the copy: %s\n", f, d, d1, d2,
            (d >= 1 && d1 > 0 && d2 > 0) ? "ahead" : "not ahead" }'
}
# step NAME BAD P1 P2 MS: form NAME (its turns P1 P2, first turn's MS) against the kept one ($kn,
# $k1 $k2 $kms): it becomes the kept one where it is ahead
step()
{
    v=$(against "$1 against $kn" "$2" "$k1" "$3" "$k2" "$4")
    echo "$v"
    case "$v" in *": ahead") kn=$1 k1=$3 k2=$4 kms=$5 ;; esac
}
# mark PCT MS: 85% met or not and torch.mm's time against MS
mark()
{
    awk -v a="$1" -v ms="$2" -v tm=0.2546 'BEGIN {
        printf "decides: 64 vectors, the kept form: %s%% of the copy, 85%%: %s; torch.mm %.4f ms%s\n", a,
            (a != "" && a >= 85 ? "met" : "not met"), tm, (ms == "" ? "" : sprintf(" against %.4f: %.2fx", ms, tm / ms)) }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== registers (ptxas, sm_90a): default / m1 / trunc / bulk / bulkxv"
        for f in 0 m1 trunc bulk bulkxv; do
            env $T=$f build/cutec compile gemv --dtype f32 --shape $S --vectors 64 --arch sm_90a --emit usage 2>&1 |
                grep -E 'registers|spill' | tr '\n' ' '
            echo
        done
        echo "== the default, m1, trunc, bulk and bulkxv on the GPU against float64 $(el_s)"
        gemv_check 1 - --shape 1000x2056 --vectors 64
        gemv_check 2 - --shape 1024x1000 --vectors 64 --splits 2 --reduction atomic
        gemv_check 3 - --shape 264x1040 --vectors 64 --batch 2
        gemv_check 4 - --shape 8192x2056 --vectors 64
        gemv_check 5 - --shape 520x2056 --vectors 32 --splits 3
        gemv_check 6 - --shape 1000x2056 --vectors 128 --splits 2
        gemv_check 7 $T=m1 --shape 1000x2056 --vectors 64 --splits 2
        gemv_check 8 $T=trunc --shape 8192x2056 --vectors 64
        gemv_check 9 $T=trunc --shape 300x4100 --vectors 64 --splits 3
        gemv_check 10 $T=trunc --shape 1000x24 --vectors 64
        gemv_check 11 $T=bulk --shape 8192x2056 --vectors 64
        gemv_check 12 $T=bulk --shape 520x4100 --vectors 64 --splits 3 --reduction atomic
        gemv_check 13 $T=bulk --shape 264x1040 --vectors 64 --batch 2
        gemv_check 14 $T=bulk --shape 1000x100 --vectors 64
        gemv_check 15 $T=bulkxv --shape 8192x2056 --vectors 64 --splits 2
        gemv_check 16 $T=bulkxv --shape 520x4100 --vectors 64 --batch 2
        gemv_check 17 $T=bulkxv --shape 1000x1000 --vectors 64 --splits 3 --reduction atomic
        wait
        gemv_checked 1 2 3 4 5 6 || bad=1
        gemv_checked 7 || echo "   (m1, the old form: not kept whatever the times)"
        gemv_checked 8 9 10 || badt=1
        gemv_checked 11 12 13 14 || badb=1
        gemv_checked 15 16 17 || badx=1
        echo "== 8192x8192 f32, 64 vectors: default / m1 / trunc / bulk / bulkxv in turns $(el_s)"
        gemv_pct 64 - && a1=$pct ams=$ms
        gemv_pct 64 $T=m1 && b1=$pct bms=$ms
        gemv_pct 64 $T=trunc && c1=$pct cms=$ms
        gemv_pct 64 $T=bulk && g1=$pct gms=$ms
        gemv_pct 64 $T=bulkxv && h1=$pct hms=$ms
        gemv_pct 64 - && a2=$pct
        gemv_pct 64 $T=m1 && b2=$pct
        gemv_pct 64 $T=trunc && c2=$pct
        gemv_pct 64 $T=bulk && g2=$pct
        gemv_pct 64 $T=bulkxv && h2=$pct
        echo "== 16384x4096 at 64 vectors: default / m1 / bulk / bulkxv; 8192x8192 at 32 and 128 vectors $(el_s)"
        S=16384x4096
        gemv_pct 64 - && f1=$pct
        gemv_pct 64 $T=m1 && f2=$pct
        gemv_pct 64 $T=bulk && f3=$pct
        gemv_pct 64 $T=bulkxv && f4=$pct
        S=8192x8192
        gemv_pct 32 - && e1=$pct
        gemv_pct 128 - && e2=$pct
        echo "== at $(el) s: % of the copy, f32 $S, 64 vectors: default ${a1:-} / ${a2:-} (${ams:-?} ms)," \
            "m1 ${b1:-} / ${b2:-} (${bms:-?} ms), trunc ${c1:-} / ${c2:-} (${cms:-?} ms)," \
            "bulk ${g1:-} / ${g2:-} (${gms:-?} ms), bulkxv ${h1:-} / ${h2:-} (${hms:-?} ms);" \
            "16384x4096 x64: default ${f1:-}, m1 ${f2:-}, bulk ${f3:-}, bulkxv ${f4:-};" \
            "32 vectors ${e1:-}, 128 ${e2:-}"
        kn=m1 k1=${b1:-} k2=${b2:-} kms=${bms:-}
        step default "${bad:-}" "${a1:-}" "${a2:-}" "${ams:-}"
        step bulk "${badb:-}" "${g1:-}" "${g2:-}" "${gms:-}"
        step bulkxv "${badx:-}" "${h1:-}" "${h2:-}" "${hms:-}"
        if [ "$kn" = default ]; then
            step trunc "${badt:-}" "${c1:-}" "${c2:-}" "${cms:-}"
        else
            against "trunc against the default (timed without $kn: not kept)" "${badt:-}" "${a1:-}" "${c1:-}" "${a2:-}" "${c2:-}"
        fi
        echo "decides: the kept form: $kn"
        mark "$(mean2 "$k1" "$k2")" "$kms"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: nothing timed (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 120
