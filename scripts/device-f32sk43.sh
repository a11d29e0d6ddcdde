#!/bin/sh
# Branch f32sk43's pass on one H200 (issue 17: f32's skinny GEMM at 64 vectors, 8192x8192, from
# ~65% of the device copy to 85%), under 50 s of GPU work after the lead's `make all tests`
# (nothing is built here); log $OUT/f32sk43.log.
# The trials (CUTEC_GEMV_WGMMA_TRIAL): m2, wgmma's 3xTF32 form with each warpgroup on two m64
# tiles of A a k-tile (blocks of 256 rows, 4 splits at 8192 rows): the per-k-tile work that does
# not scale with A (X's halves: 2 LDS, 24 ALU and 16 STS a thread; the ring's waits, the fence,
# the barrier, the wgmma descriptors, the loop) spread over twice A's bytes (session 42's ncu:
# issue bound by each warp's chain, short scoreboard and MIO, the tensor pipe 56%, gmma stalls
# 0); trunc, the tf32 halves' big one by truncation (one instruction fewer a value of A and X:
# 16 of ~125 a thread per 16 KB of A under m2; small below 2^-10 of a value instead of 2^-11);
# m2trunc, both.
# Steps: (1) the default and the trials on the GPU against float64 (`cutec run gemv`, every
# element; odd sizes, split K ordered and atomic, a batch, the block past A's last row, K = 24,
# 32, 64 and 128 vectors), side by side in the background; (2) 64 vectors: default / m2 /
# m2trunc, twice, each its own process (% of a device copy of the same bytes, y checked against
# float64 first); (3) trunc alone at 64, 32 vectors default / m2trunc; (4) ncu on m2trunc's
# kernel (issue stalls, instructions), if 12 s are left.
# The rule (verdict, below): m2trunc kept where it is ahead of the default (d >= 1 point over the
# two turns, both turns ahead) and m2 is not or m2trunc is ahead of m2 too; else m2 where it is
# ahead of the default; else both deleted; a failed check or WRONG row rules its form out.
# Then 85% and torch.mm's time (session 42's mid pass: 0.2546 ms) for the kept form.
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
# verdict BADM BADT A1 B1 C1 A2 B2 C2 MSA MSB MSC: the default (A), m2 (B), m2trunc (C) in two
# turns: m2trunc kept where it is ahead of the default and (m2 is not, or it is ahead of m2:
# trunc's coarser halves only for a point), else m2 where it is ahead of the default, else none
verdict()
{
    m2=$(against "m2 against the default" "$1" "$3" "$4" "$6" "$7")
    mtd=$(against "m2trunc against the default" "$2" "$3" "$5" "$6" "$8")
    mt=$(against "m2trunc against m2" "$2" "$4" "$5" "$7" "$8")
    printf '%s\n%s\n%s\n' "$m2" "$mtd" "$mt"
    case "$mtd/$m2/$mt" in
        *": ahead/"*": ahead/"*": ahead" | *": ahead/"*": not ahead/"*)
            echo "decides: m2trunc the default (m2 and trunc the only forms)"
            mark "$(mean2 "$5" "$8")" "${11}" ;;
        *"/"*": ahead/"*)
            echo "decides: m2 the default, trunc deleted"
            mark "$(mean2 "$4" "$7")" "${10}" ;;
        *)
            echo "decides: m2 and trunc deleted (the default kept)"
            mark "$(mean2 "$3" "$6")" "$9" ;;
    esac
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
        echo "== registers (ptxas, sm_90a): default / m2"
        build/cutec compile gemv --dtype f32 --shape $S --vectors 64 --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' '
        echo
        env $T=m2 build/cutec compile gemv --dtype f32 --shape $S --vectors 64 --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' '
        echo
        echo "== the default and the trials on the GPU against float64 $(el_s)"
        gemv_check 1 - --shape 1000x2056 --vectors 64
        gemv_check 2 - --shape 1024x1000 --vectors 64 --splits 2
        gemv_check 3 $T=m2 --shape 1000x2056 --vectors 64
        gemv_check 4 $T=m2 --shape 1024x1000 --vectors 64 --splits 2
        gemv_check 5 $T=m2 --shape 520x2056 --vectors 32 --reduction atomic --splits 3
        gemv_check 6 $T=m2 --shape 264x1040 --vectors 64 --batch 2
        gemv_check 7 $T=m2trunc --shape 8192x2056 --vectors 64
        gemv_check 8 $T=m2trunc --shape 300x4100 --vectors 64 --splits 3
        gemv_check 9 $T=m2trunc --shape 1000x24 --vectors 64
        gemv_check 10 $T=trunc --shape 1000x2056 --vectors 128 --splits 2
        wait
        gemv_checked 1 2 || bad=1
        gemv_checked 3 4 5 6 || bad=1 badm=1
        gemv_checked 7 8 9 10 || bad=1 badm=1 badt=1
        echo "== 8192x8192 f32, 64 vectors: default / m2 / m2trunc in turns $(el_s)"
        gemv_pct 64 - && a1=$pct ams=$ms
        gemv_pct 64 $T=m2 && b1=$pct bms=$ms
        gemv_pct 64 $T=m2trunc && c1=$pct cms=$ms
        gemv_pct 64 - && a2=$pct
        gemv_pct 64 $T=m2 && b2=$pct
        gemv_pct 64 $T=m2trunc && c2=$pct
        echo "== trunc alone at 64 vectors; 32 vectors: default / m2trunc $(el_s)"
        gemv_pct 64 $T=trunc && t1=$pct
        gemv_pct 32 - && e1=$pct
        gemv_pct 32 $T=m2trunc && e2=$pct
        if [ "$(el)" -le $((budget - 12)) ]; then
            ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
            if [ -n "$ncu" ]; then
                echo "-- ncu on m2trunc's 64-vector kernel: issue stalls an issued instruction $(el_s)"
                env $T=m2trunc timeout 12 "$ncu" --clock-control none --target-processes all -k regex:mma_kernel --launch-count 1 \
                    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__inst_executed.sum" \
                    build/cutec bench gemv --dtype f32 --shape $S --vectors 64 --iters 2 >"$out/f32sk43.ncu64" 2>&1
                grep -E "==PROF==|rror" "$out/f32sk43.ncu64" | head -n 4
                grep -E "gmma|dram__|issue_active|duration|inst_executed" "$out/f32sk43.ncu64" | cut -c1-200
                grep -E "issue_stalled" "$out/f32sk43.ncu64" | awk '{ print $NF, $0 }' | sort -g -r | head -n 8 | cut -d' ' -f2- | cut -c1-200
            else
                echo "-- ncu: none here"
            fi
        fi
        echo "== at $(el) s: % of the copy, f32 $S, 64 vectors: default ${a1:-} / ${a2:-} (${ams:-?} ms)," \
            "m2 ${b1:-} / ${b2:-} (${bms:-?} ms), m2trunc ${c1:-} / ${c2:-} (${cms:-?} ms), trunc ${t1:-};" \
            "32 vectors: default ${e1:-}, m2trunc ${e2:-}"
        verdict "${badm:-}" "${badt:-}" "${a1:-}" "${b1:-}" "${c1:-}" "${a2:-}" "${b2:-}" "${c2:-}" \
            "${ams:-}" "${bms:-}" "${cms:-}"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: nothing timed (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 120
