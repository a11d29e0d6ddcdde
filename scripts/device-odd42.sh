#!/bin/sh
# The mid pass of branch odd42 on one H200 (issue 17: 4097x3x8191 bf16 and 3x5x100000 f32 at 70%
# of the copy), under 50 s of GPU work after the lead's `make all tests` (nothing is built here);
# log $OUT/odd42.log.  The forms, each opt-in, each checked against float64 on the GPU first:
# - bf16 4097x8191 x3 (the skew form, 4 splits, 8 k-tiles a block, 16 warps an SM of 106
#   registers: 64 KB of A in flight an SM at most): `--l2-prefetch 1` (pf1;
#   cute_gemv_config.l2_prefetch, refused for the skew form until now): before each whole
#   k-tile's loads, one prefetch.global.L2 a lane for the warp's 8 rows' next k-tile (32 lines of
#   128 bytes): another 64 KB an SM on its way that holds no registers; CUTEC_GEMV_TRIAL=afirst,
#   the k-tile's 8 loads of A (to DRAM) issued before x's 24 (L1), not after;
#   CUTEC_GEMV_TRIAL=xvec, x read in each whole k-tile but the split's last as aligned 8-byte
#   vectors (3 loads a vector and lane, not 8 of 2 bytes), its 8 elements picked out by 5
#   selects and 4 prmt (x's misalignment, uniform in the warp, from the library's argument),
#   128 registers (ptxas held to 2 blocks an SM, no spill); CUTEC_GEMV_TRIAL=early, each warp
#   asks L2 for its rows' first two whole k-tiles (64 KB a block) before griddepcontrol.wait, so
#   that the first two rounds of loads after the previous grid's end (its one-launch sums, its
#   flush) hit L2 instead of DRAM (a prefetch moves nothing to the thread: it may precede the
#   wait; measured: a call is 28.9 us, 8 rounds of loads a block, one wave).
# - f32 5x100000 x3 (391 splits, one launch): CUTEC_GEMV_TRIAL=sum32, the last block's 49 loads a
#   thread in rounds of 32 predicated loads at once (2 round trips, not the unrolled loop's 4);
#   u4s: sum32 and u4, four vectors a lane
#   and row a k-tile (128 registers, no spill), 196 k-tiles of 512 columns, so 196 splits of
#   one k-tile and 25 loads a thread in the last block (one round trip each).  bf16 5x100000
#   (131 splits: 17 loads a thread) takes sum32 too: checked here, timed in the final pass.
# Then each form against the default in processes in turns (default, form, ..., default, form,
# ...; `cutec bench gemv --forms lib,lib,lib`: three readings a process, beside the device copy
# of the same bytes), the decisions, then if time is left ncu's metrics of the skew kernel and
# of the 5x100000 rows kernel (duration, DRAM, stall reasons) and torch.mm on the two shapes.
# The rule per form (GB/s, the mean of its readings against the default's, r; r1 and r2 each
# turn's): a WRONG reading or a failed check -> "delete (wrong)"; r >= 1.02 and r1, r2 > 1 ->
# "adopt"; r <= 0.99 -> "delete (slower)"; else "delete (within the spread)"; the % of the copy
# (the means) beside it and the issue's 70%.
#   BUDGET=50 sh scripts/device-odd42.sh
. scripts/device-common.sh
log="$out/odd42.log"
start=$(date +%s)
budget=${BUDGET:-50}
# checked WHAT TAG TRIAL CMD...: CMD's verdict line under CUTEC_GEMV_TRIAL=TRIAL; TAG (the
# form's name in the turns) added to $bad unless verified (and, where it checks them, the same
# bits twice)
checked()
{
    what=$1 tag=$2 tr=$3
    shift 3
    device_late run "$what" && return
    r=$(CUTEC_GEMV_TRIAL=$tr timeout 15 "$@" 2>&1 | grep -E "verified|FAIL|rror|NOT the same|refus|WRONG" | head -n 3 | tr '\n' ' ')
    echo "run $what: $r"
    if ! echo "$r" | grep -q "verified" || echo "$r" | grep -qE "NOT the same|FAIL|WRONG"; then
        echo "   ^ FAILED"
        bad="$bad $tag"
    fi
}
# turn FILE TAG TRIAL ARGS: one process, `cutec bench gemv --iters 20 --vectors 3 --forms
# lib,lib,lib ARGS` under CUTEC_GEMV_TRIAL=TRIAL, its rows printed as "TAG: row" and kept in FILE
# as "TAG TURN GBS PCT" (GBS "W" where WRONG or failed); TURN counts TAG's processes
turn()
{
    file=$1 tag=$2 tr=$3
    shift 3
    device_late "$tag $*" && return
    n=$(awk -v t="$tag" '$1 == t { if ($2 > m) m = $2 } END { print m + 1 }' "$file" 2>/dev/null || echo 1)
    CUTEC_GEMV_TRIAL=$tr timeout 15 build/cutec bench gemv --iters 20 --vectors 3 --forms lib,lib,lib "$@" >"$out/turn.txt" 2>&1
    awk -v tag="$tag" -v n="$n" -v file="$file" '
        !/^#/ && (/N=[0-9]/ || /failed|rror/) { print tag ": " $0
            if ($0 ~ /WRONG|failed|rror/) { print tag, n, "W", "W" >> file; next }
            p = $NF; sub("%", "", p); print tag, n, $(NF - 2), p >> file; next }' "$out/turn.txt"
}
# turns FILE DTYPE SHAPE FORM...: two turns of one process a FORM ("TAG TRIAL [ARGS]") in order
turns()
{
    tf=$1 d=$2 s=$3
    shift 3
    : >"$tf"
    for t in 1 2; do
        echo "-- turn $t"
        for form in "$@"; do
            # shellcheck disable=SC2086 # (the form's words)
            turn "$tf" $form --dtype "$d" --shape "$s"
        done
    done
}
# decide FILE ROW FORM: the rule's line for FORM against "def" in FILE (wrong where a check of
# FORM or of the default failed, or a reading of either said WRONG)
decide()
{
    awk -v row="$2" -v form="$3" -v bad="${bad:-}" '
        $3 == "W" { w[$1] = 1; next }
        { g[$1] += $3; p[$1] += $4; c[$1]++; gt[$1, $2] += $3; ct[$1, $2]++ }
        END {
            failed = index(bad " ", " " form " ") || index(bad " ", " def ")
            if (w[form] || w["def"] || failed) { print "decides: " row ": " form ": delete (wrong" (failed ? "; failed checks:" bad : "") ")"; exit }
            if (!ct[form, 1] || !ct[form, 2] || !ct["def", 1] || !ct["def", 2]) { print "decides: " row ": " form ": not timed (two turns each)"; exit }
            r = (g[form] / c[form]) / (g["def"] / c["def"])
            r1 = (gt[form, 1] / ct[form, 1]) / (gt["def", 1] / ct["def", 1]); r2 = (gt[form, 2] / ct[form, 2]) / (gt["def", 2] / ct["def", 2])
            v = r >= 1.02 && r1 > 1 && r2 > 1 ? "adopt" : r <= 0.99 ? "delete (slower)" : "delete (within the spread)"
            printf "decides: %s: %s: %s (GB/s %.4f of the default, by turn %.4f %.4f; %.1f against %.1f GB/s; %.2f%% of the copy against %.2f%%; the issue'"'"'s 70%%: %s)\n",
                row, form, v, r, r1, r2, g[form] / c[form], g["def"] / c["def"], p[form] / c[form], p["def"] / c["def"],
                (p[form] / c[form] >= 70 ? "met" : "not met") }' "$1"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        bad=
        echo "== each form on the GPU against float64 (every element; the same bits twice) $(el_s)"
        for pf in 0 1; do
            tag=pf$pf
            [ $pf = 0 ] && tag=def
            checked "bf16 4097x8191 x3, L2 prefetch $pf" $tag 0 build/cutec run gemv --iters 5 --dtype bf16 --shape 4097x8191 --vectors 3 --l2-prefetch $pf
        done
        for tr in 0 sum32 sum32,u4; do
            tag=$tr
            [ $tr = 0 ] && tag=def
            [ $tr = sum32,u4 ] && tag=u4s
            checked "f32 5x100000 x3, trial $tr" $tag $tr build/cutec run gemv --iters 5 --dtype f32 --shape 5x100000 --vectors 3
        done
        checked "bf16 4097x8191 x3, trial afirst" afirst afirst build/cutec run gemv --iters 5 --dtype bf16 --shape 4097x8191 --vectors 3
        checked "bf16 4097x8191 x3, trial xvec" xvec xvec build/cutec run gemv --iters 5 --dtype bf16 --shape 4097x8191 --vectors 3
        checked "bf16 4097x8191 x3, trial early" early early build/cutec run gemv --iters 5 --dtype bf16 --shape 4097x8191 --vectors 3
        checked "bf16 5x100000 x3, trial sum32" sum32 sum32 build/cutec run gemv --iters 5 --dtype bf16 --shape 5x100000 --vectors 3
        echo "== bf16 4097x8191 x3: the default, L2 prefetch 1, xvec, early, afirst in processes in turns $(el_s)"
        b=$out/bf16-4097.turns
        turns "$b" bf16 4097x8191 "def 0" "pf1 0 --l2-prefetch 1" "xvec xvec" "early early" "afirst afirst"
        echo "== f32 5x100000 x3: the default, sum32, u4s (sum32,u4) in processes in turns $(el_s)"
        f=$out/f32-5.turns
        turns "$f" f32 5x100000 "def 0" "sum32 sum32" "u4s sum32,u4"
        echo "== at $(el) s"
        decide "$b" "bf16 4097x8191 x3" pf1
        decide "$b" "bf16 4097x8191 x3" afirst
        decide "$b" "bf16 4097x8191 x3" xvec
        decide "$b" "bf16 4097x8191 x3" early
        decide "$f" "f32 5x100000 x3" sum32
        decide "$f" "f32 5x100000 x3" u4s
        echo "== ncu: the skew kernel (bf16 4097x8191 x3) and the rows kernel at f32 5x100000 x3, the defaults, one launch each $(el_s)"
        m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum
        m=$m,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_active
        m=$m,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
        m=$m,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
        for st in long_scoreboard lg_throttle mio_throttle short_scoreboard barrier wait math_pipe_throttle not_selected selected membar drain no_instruction; do
            m=$m,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio
        done
        for k in "skew bf16 4097x8191" "rows f32 5x100000"; do
            # (ncu replays the kernel: about 10 s)
            if [ $(($(date +%s) - start + 10)) -gt "$budget" ]; then echo "-- skipped (10 s short of BUDGET_S): ncu $k"; continue; fi
            # shellcheck disable=SC2086 # (its words)
            set -- $k
            echo "-- ncu $k"
            timeout 15 ncu --metrics "$m" -k "regex:$1" --launch-skip 2 -c 1 build/cutec run gemv --iters 3 \
                --dtype "$2" --shape "$3" --vectors 3 2>&1 | grep -E "__|_kernel|rror" | head -n 40
        done
        echo "== torch.mm (A B^T) on the two shapes: the median of single calls, and 100 back to back $(el_s)"
        if [ $(($(date +%s) - start + 6)) -gt "$budget" ]; then echo "-- skipped (6 s short of BUDGET_S): torch"; else timeout 12 python3 -c '
import sys; sys.path.insert(0, "bench")
import torch
from torch_timing import median_ms
for dt in (torch.bfloat16, torch.float32):
    for m, n, k in ((4097, 3, 8191), (3, 5, 100000)):
        A = torch.rand(m, k, device="cuda", dtype=dt) * 4 - 2
        B = torch.rand(n, k, device="cuda", dtype=dt) * 4 - 2
        ms = median_ms(lambda: torch.mm(A, B.t()))
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(100):
            torch.mm(A, B.t())
        b.record(); b.synchronize()
        ms100 = a.elapsed_time(b) / 100
        gb = ((m * k + n * k) * A.element_size() + m * n * A.element_size()) / 1e6
        print(f"torch.mm {str(dt)[6:]:9s} {m}x{n}x{k}: {ms:.4f} ms {gb / ms:8.1f} GB/s (single); {ms100:.4f} ms {gb / ms100:8.1f} GB/s (back to back)")
' 2>&1 | grep -v Warning; fi
    else
        echo "== no GPU here: every GPU step skipped"
    fi
    device_end
} 2>&1 | tee "$log"
