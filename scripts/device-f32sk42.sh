#!/bin/sh
# Branch f32sk42's final pass on one H200 (issue 17: f32's skinny GEMM at 8192x8192, 85% of the
# device copy and torch.mm's speed), under 50 s of GPU work after the lead's `make all tests`
# (nothing is built here); log $OUT/f32sk42.log.
# The mid pass (16:04-16:07 UTC) and the extra pass (16:39-16:42; bench/RESULTS.md, f32sk42)
# made k pairs (f32's ring in blocks of two k groups, one split at 8192 rows) and wgmma's A ring of
# 6 the only forms (8 vectors 93.1 / 93.2% of the copy against the old 80.1 / 80.0; 16 vectors
# 87.8 / 88.3 against 84.5 / 84.9; 64 vectors 64.1 / 64.1 against 62.0 / 62.2). Chains (f32's
# 3xTF32 products summed apart, CUTEC_GEMV_F32_CHAINS=3, the default) are the one question left:
# with k pairs they ran 95.4 against 94.1 at 8 vectors (mid pass, one turn each) but 87.8 / 88.3
# against 89.3 without them at 16 (extra pass, one turn).
# Steps: (1) the defaults on the GPU against float64 (`cutec run gemv`, every element; odd sizes,
# split K ordered and atomic, a batch, the block past A's last row, the register form at 24
# vectors, wgmma at 32 to 128) and the form without chains at 8 and 16, side by side in the
# background; (2) 8 vectors: default / CUTEC_GEMV_F32_CHAINS=1, twice; (3) 16 vectors: the same;
# (4) 64 vectors, the default twice; (5) ncu on the 64-vector kernel: why its warps wait (the
# issue-stall reasons an issued instruction, the tensor pipe's and DRAM's share), at most 15 s and
# only if started 10 s before the budget's end; (6) 32 and 128 vectors once each (wgmma's ring).
# Each timed row is its own process (% of a device copy of the same bytes, y checked against
# float64 first). No step starts past $BUDGET (50) s; each process under 12 s.
# The rule for chains at 8 and at 16 vectors (points of the copy, d = with - without over the two
# turns, d1 d2 each turn's): a failed check or WRONG row -> "revert (wrong)"; d >= 1 and d1, d2 > 0
# -> "keep chains there"; d <= -1 and d1, d2 < 0 -> "chains off there"; else "within the spread
# (keep chains: one form)"; then 85% and torch.mm's time (the mid pass's) for each row.
#   BUDGET=50 sh scripts/device-f32sk42.sh
. scripts/device-common.sh
log="$out/f32sk42.log"
start=$(date +%s)
budget=${BUDGET:-50}
GEMV_TIMEOUT=12
S=8192x8192
NOCH=CUTEC_GEMV_F32_CHAINS=1
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
# chains NAME BAD D1 O1 D2 O2 MS TORCH: the rule's line for chains at NAME, with (D1, D2) against
# without (O1, O2), the default's time MS against torch.mm's TORCH (the mid pass's, same card and
# clock)
chains()
{
    awk -v f="decides: chains at $1" -v bad="$2" -v a1="$3" -v o1="$4" -v a2="$5" -v o2="$6" -v ms="$7" -v tm="$8" 'BEGIN {
        if (bad != "" || a1 o1 a2 o2 ~ /W/) { print f ": revert (wrong)"; exit }
        if (a1 == "" || o1 == "" || a2 == "" || o2 == "") { print f ": not timed (keep chains: one form)"; exit }
        d1 = a1 - o1; d2 = a2 - o2; d = (d1 + d2) / 2; a = (a1 + a2) / 2; o = (o1 + o2) / 2
        v = d >= 1 && d1 > 0 && d2 > 0 ? "keep chains there" : d <= -1 && d1 < 0 && d2 < 0 ? "chains off there" : "within the spread (keep chains: one form)"
        printf "%s: %s (%+.2f points: with %.2f%% of the copy, without %.2f; by turn %+.2f %+.2f;", f, v, d, a, o, d1, d2
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
        check 12 $NOCH --shape 1000x1000 --vectors 16 --splits 3
        wait
        checked 1 2 3 4 5 || bad8=1
        checked 6 7 8 9 10 || bad64=1
        checked 11 12 || bad8=1
        echo "== 8 vectors: with chains (default) / without, twice $(el_s)"
        pct_of 8 - && d8a=$pct d8ms=$ms
        pct_of 8 $NOCH && o8a=$pct
        pct_of 8 - && d8b=$pct
        pct_of 8 $NOCH && o8b=$pct
        echo "== 16 vectors: with chains (default) / without, twice $(el_s)"
        pct_of 16 - && d16a=$pct d16ms=$ms
        pct_of 16 $NOCH && o16a=$pct
        pct_of 16 - && d16b=$pct
        pct_of 16 $NOCH && o16b=$pct
        echo "== 64 vectors, the default twice $(el_s)"
        pct_of 64 - && d64a=$pct d64ms=$ms
        pct_of 64 - && d64b=$pct
        if [ "$(el)" -le $((budget - 10)) ]; then
            ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
            if [ -n "$ncu" ]; then
                echo "-- ncu on the 64-vector default's kernel: issue stalls an issued instruction $(el_s)"
                timeout 15 "$ncu" --clock-control none --target-processes all -k regex:mma_kernel --launch-count 1 \
                    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum" \
                    build/cutec bench gemv --dtype f32 --shape $S --vectors 64 --iters 2 >"$out/f32sk42.ncu64" 2>&1
                grep -E "==PROF==|rror" "$out/f32sk42.ncu64" | head -n 4
                grep -E "gmma|dram__|issue_active|duration" "$out/f32sk42.ncu64" | cut -c1-200
                grep -E "issue_stalled" "$out/f32sk42.ncu64" | awk '{ print $NF, $0 }' | sort -g -r | head -n 10 | cut -d' ' -f2- | cut -c1-200
            else
                echo "-- ncu: none here"
            fi
        fi
        echo "== wgmma's ring at 32 and 128 vectors $(el_s)"
        pct_of 32 - && d32=$pct
        pct_of 128 - && d128=$pct
        echo "== at $(el) s: % of the copy, f32 $S: 8 vectors with chains ${d8a:-} / ${d8b:-} (${d8ms:-?} ms), without ${o8a:-} / ${o8b:-};" \
            "16 vectors with chains ${d16a:-} / ${d16b:-} (${d16ms:-?} ms), without ${o16a:-} / ${o16b:-};" \
            "64 vectors ${d64a:-} / ${d64b:-} (${d64ms:-?} ms); 32 vectors ${d32:-}, 128 ${d128:-}"
        chains "8 vectors" "${bad8:-}" "${d8a:-}" "${o8a:-}" "${d8b:-}" "${o8b:-}" "${d8ms:-}" "$(torch_ms 8)"
        chains "16 vectors" "${bad8:-}" "${d16a:-}" "${o16a:-}" "${d16b:-}" "${o16b:-}" "${d16ms:-}" "$(torch_ms 16)"
        awk -v f="decides: 64 vectors, wgmma's ring of 6" -v bad="${bad64:-}" -v a="$(mean2 "${d64a:-}" "${d64b:-}")" -v ms="${d64ms:-}" -v tm="$(torch_ms 64)" 'BEGIN {
            if (bad != "" || a ~ /W/) { print f ": WRONG (revert to the loads in registers)"; exit }
            if (a == "") { print f ": not timed"; exit }
            printf "%s: kept (%.2f%% of the copy; 85%%: %s; torch.mm: %s)\n", f, a, (a >= 85 ? "met" : "not met"),
                (ms == "" ? "not timed" : sprintf("%.4f ms against %.4f, %.2fx", ms, tm, tm / ms)) }'
    else
        echo "== no GPU here: nothing timed"
        echo "decides: chains at 8 vectors: keep (no GPU)"
        echo "decides: chains at 16 vectors: keep (no GPU)"
    fi
    device_end
    echo "== WRONG lines: $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -v "^# \(check\|time\|index\)" "$log" | tail -n 120
