#!/bin/sh
# Branch f32sk43's pass on one H200 (issue 17: f32's skinny GEMM at 64 vectors, 8192x8192, from
# ~65% of the device copy to 85%), under 50 s of GPU work after the lead's `make all tests`
# (nothing is built here); log $OUT/f32sk43.log.
# The trial: CUTEC_GEMV_WGMMA_TRIAL=m2, wgmma's 3xTF32 form with each warpgroup on two m64 tiles
# of A a k-tile (blocks of 256 rows, 4 splits at 8192 rows): the per-k-tile work that does not
# scale with A (X's halves: 2 LDS, 24 ALU and 16 STS a thread; the ring's waits, the fence, the
# barrier, the wgmma descriptors, the loop) spread over twice A's bytes (session 42's ncu: issue
# bound by each warp's chain, short scoreboard and MIO, the tensor pipe 56%, gmma stalls 0).
# Steps: (1) the default and m2 on the GPU against float64 (`cutec run gemv`, every element;
# odd sizes, split K ordered and atomic, a batch, the block past A's last row, 32 and 64
# vectors), side by side in the background; (2) 64 vectors: default / m2 / default / m2, each its
# own process (% of a device copy of the same bytes, y checked against float64 first); (3) 32
# vectors: default / m2; (4) ncu on m2's kernel (issue stalls), if 12 s are left.
# The rule at 64 vectors (points of the copy, d = m2 - default over the two turns, d1 d2 each
# turn's): a failed check or WRONG row -> "revert (wrong)"; d >= 1 and d1, d2 > 0 -> "m2 the
# default"; else "delete m2"; then 85% and torch.mm's time (session 42's mid pass: 0.2546 ms).
#   BUDGET=50 sh scripts/device-f32sk43.sh
. scripts/device-common.sh
log="$out/f32sk43.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=12
tag=f32sk43
S=8192x8192
T=CUTEC_GEMV_WGMMA_TRIAL
# decide BAD A1 B1 A2 B2 MSA MSB: "decides: ..." for m2 (B) against the default (A) at 64 vectors
# (MSA, MSB: their first turn's ms)
decide()
{
    awk -v bad="$1" -v a1="$2" -v b1="$3" -v a2="$4" -v b2="$5" -v msa="$6" -v msb="$7" -v tm=0.2546 'BEGIN {
        f = "decides: 64 vectors, m2 against the default"
        if (bad != "" || a1 b1 a2 b2 ~ /W/) { print f ": revert (wrong)"; exit }
        if (a1 == "" || b1 == "" || a2 == "" || b2 == "") { print f ": not timed in two turns (keep the default)"; exit }
        d1 = b1 - a1; d2 = b2 - a2; d = (d1 + d2) / 2
        v = (d >= 1 && d1 > 0 && d2 > 0) ? "m2 the default" : "delete m2"
        printf "%s: d %+.2f (%+.2f, %+.2f) points of the copy: %s\n", f, d, d1, d2, v
        win = d >= 1 && d1 > 0 && d2 > 0
        best = win ? (b1 + b2) / 2 : (a1 + a2) / 2
        ms = win ? msb : msa
        printf "decides: 64 vectors: %.2f%% of the copy, 85%%: %s; torch.mm %.4f ms%s\n", best,
            (best >= 85 ? "met" : "not met"), tm, (ms == "" ? "" : sprintf(", the kept form %.4f ms: %.2fx", ms, tm / ms)) }'
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== registers (ptxas, sm_90a): default / m2"
        build/cutec compile gemv --dtype f32 --shape $S --vectors 64 --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' '
        echo
        env $T=m2 build/cutec compile gemv --dtype f32 --shape $S --vectors 64 --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' '
        echo
        echo "== the default and m2 on the GPU against float64 $(el_s)"
        gemv_check 1 - --shape 1000x2056 --vectors 64
        gemv_check 2 - --shape 1024x1000 --vectors 64 --splits 2
        gemv_check 3 $T=m2 --shape 1000x2056 --vectors 64
        gemv_check 4 $T=m2 --shape 1024x1000 --vectors 64 --splits 2
        gemv_check 5 $T=m2 --shape 520x2056 --vectors 32 --reduction atomic --splits 3
        gemv_check 6 $T=m2 --shape 264x1040 --vectors 64 --batch 2
        gemv_check 7 $T=m2 --shape 8192x2056 --vectors 64
        gemv_check 8 $T=m2 --shape 300x4100 --vectors 64 --splits 3
        wait
        gemv_checked 1 2 || bad=1
        gemv_checked 3 4 5 6 7 8 || bad=1
        echo "== 8192x8192 f32, 64 vectors: default / m2 in turns $(el_s)"
        gemv_pct 64 - && a1=$pct dms=$ms
        gemv_pct 64 $T=m2 && b1=$pct bms=$ms
        gemv_pct 64 - && a2=$pct
        gemv_pct 64 $T=m2 && b2=$pct
        echo "== 32 vectors: default / m2 $(el_s)"
        gemv_pct 32 - && c1=$pct
        gemv_pct 32 $T=m2 && c2=$pct
        if [ "$(el)" -le $((budget - 12)) ]; then
            ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
            if [ -n "$ncu" ]; then
                echo "-- ncu on m2's 64-vector kernel: issue stalls an issued instruction $(el_s)"
                env $T=m2 timeout 12 "$ncu" --clock-control none --target-processes all -k regex:mma_kernel --launch-count 1 \
                    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__inst_executed.sum" \
                    build/cutec bench gemv --dtype f32 --shape $S --vectors 64 --iters 2 >"$out/f32sk43.ncu64" 2>&1
                grep -E "==PROF==|rror" "$out/f32sk43.ncu64" | head -n 4
                grep -E "gmma|dram__|issue_active|duration|inst_executed" "$out/f32sk43.ncu64" | cut -c1-200
                grep -E "issue_stalled" "$out/f32sk43.ncu64" | awk '{ print $NF, $0 }' | sort -g -r | head -n 8 | cut -d' ' -f2- | cut -c1-200
            else
                echo "-- ncu: none here"
            fi
        fi
        echo "== at $(el) s: % of the copy, f32 $S, 64 vectors: default ${a1:-} / ${a2:-} (${dms:-?} ms), m2 ${b1:-} / ${b2:-};" \
            "32 vectors: default ${c1:-}, m2 ${c2:-}"
        decide "${bad:-}" "${a1:-}" "${b1:-}" "${a2:-}" "${b2:-}" "${dms:-}" "${bms:-}"
    else
        echo "== no GPU here: nothing timed"
        echo "decides: nothing timed (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 120
