#!/bin/sh
# The pass of branch skinny38b on a GPU machine (issue 17: the skinny shapes 4097x3x8191 and
# 3x5x100000 to 70% of a copy of the same bytes; H200, main b773e9c0: 4097x3x8191 bf16 49%,
# f32 71%; 3x5x100000 bf16 0.0120 ms, f32 0.0105 ms).  Two opt-in forms, each beside the
# default in the same process (`cutec bench gemv --forms`, a copy of the same bytes beside):
#   skew (CUTEC_GEMV_UNALIGNED_ROWS=skew): K-major rows that do not start 16-byte aligned
#        (8191 bf16 or f32 a row) read as a scalar head, 16-byte vectors and a scalar tail
#        (src/kernels/gemv/skew.c), not in vectors of one element (narrow); since the mid
#        pass (05:52, bf16 52.9 / 53.2% against narrow's 54.3, f32 77.0 against 73.1) every
#        load of a k-tile is issued before its products;
#   sumout (CUTEC_GEMV_SPLIT_WARPS=output): past 32 splits the second kernel a warp an
#        output (row, vector), not a warp a row (sumrow), the same bits (3x5x100000: 391
#        splits bf16, 782 f32; 15 warps where 5 added 3 vectors in turn), and on sm_90 a
#        programmatic dependent launch let in as the splitting kernel's blocks start.
# (The fused form, the reduction in the splitting kernel, lost in the mid pass and is gone.)
# 3x5x100000 runs as 5x100000 with 3 vectors (B streamed; its rows are aligned), 4097x3x8191
# as 4097x8191 with 3.  For 3x5x100000 (1.6 MB of bf16) the copy of the same bytes is itself
# launch- and latency-bound, and 70% of ITS rate is the mark (docs/gemv.md).
# Order: the GEMV tests, `cutec run gemv` of both forms on the GPU against float64 (every row,
# or one in two), the benches (each process two turns of its forms: narrow,skew,narrow,skew;
# each form's first row checked against float64), the guard (8192x8192 with 1, 2, 4 and 8
# vectors, the default beside both forms: neither applies there), `cutec run gemm` of both
# shapes in bf16 through cutec_gemm's AUTO routing under both variables (checked against
# float64), 3x5x100000 at 132 forced splits; nothing past $BUDGET (70) s: 13 processes (the
# mid pass took about 9 s a process, kernels compiled cold, in 223 s).
# The rule (points of the copy, each form's mean over its two turns):
#   skew:   skew - narrow at 4097x8191 >= +1 in both dtypes -> "make default" (lib.c,
#           gemv_call: CUTEC_GEMV_UNALIGNED_ROWS's default 0 -> 1, narrow deleted for f32,
#           f16 and bf16); the mean below -0.5 -> "delete"; else "keep opt-in".
#   sumout: sumout - sumrow at 5x100000 >= +1 in both dtypes -> "make default" (gemv_call:
#           CUTEC_GEMV_SPLIT_WARPS's default 0 -> 1, the warp a row deleted); the mean below
#           -0.5 -> "delete"; else "keep opt-in".
#   guard:  any |forms - default| at 8192x8192 over 1, or a guard not measured -> "keep
#           opt-in" for both.  A WRONG row or a failed check -> "revert (wrong)".
#   BUDGET=70 sh scripts/device-skinny38b.sh
. scripts/device-common.sh
log="$out/skinny38b.log"
start=$(date +%s)
budget=${BUDGET:-70}
GEMV_TIMEOUT=20
TEST_TIMEOUT=20
bad=0
# pct FILE I: the % of the copy of the I-th row of a bench (W where WRONG or failed, "" where
# none)
pct()
{
    grep -E '%|failed: no time' "$1" 2>/dev/null | grep -v "^#" | sed -n "$2p" |
        awk '{ if (/WRONG|failed/) print "W"; else { p = $NF; sub("%", "", p); print p } }'
}
# two FILE I J: the mean of rows I and J ("W" if either is, "" if either is missing)
two() { mean2 "$(pct "$1" "$2")" "$(pct "$1" "$3")"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a != "W" && a + 0 >= b + 0) }'; }
# decide FORM BF16 F32: the rule on a form's two differences (points; "" where not measured)
decide()
{
    m=$(mean2 "$2" "$3")
    if ge "$2" 1 && ge "$3" 1; then
        echo "decides: $1: make default (bf16 $2, f32 $3 points)"
    elif [ -n "$2" ] && [ -n "$3" ] && [ "$m" != W ] && ! ge "$m" -0.5; then
        echo "decides: $1: delete (bf16 $2, f32 $3 points)"
    else
        echo "decides: $1: keep opt-in (bf16 ${2:-?}, f32 ${3:-?} points)"
    fi
}
{
    device_begin
    if ! device_gpu; then
        echo "decides: skew: keep opt-in (no GPU)"
        echo "decides: sumout: keep opt-in (no GPU)"
    else
        device_tests kernels/gemv/gemv_test
        grep -q " 0 failed" "$out/gemv_test.log" || bad=1
        echo "== cutec run gemv on the GPU against float64"
        for a in "bf16 4097x8191 3 --unaligned skew" "f32 5x100003 3 --unaligned skew --split-warps output"; do
            set -- $a
            d=$1 s=$2 n=$3
            shift 3
            r=$(device_gemv_run --dtype "$d" --shape "$s" --vectors "$n" "$@")
            echo "$r"
            echo "$r" | grep -q "(0 wrong" || bad=1
        done
        for d in bf16 f32; do
            echo "== $d 4097x8191 x3: narrow, skew, two turns"
            device_gemv --dtype $d --shape 4097x8191 --vectors 3 --forms narrow,skew,narrow,skew | tee "$out/s4_$d.one"
            echo "== $d 5x100000 x3: sumrow, sumout, two turns"
            device_gemv --dtype $d --shape 5x100000 --vectors 3 --forms sumrow,sumout,sumrow,sumout | tee "$out/s5_$d.one"
        done
        echo "== guard: 8192x8192 bf16, the default (lib) and both forms (skew, sumout: neither applies)"
        guard=ok
        for n in 1 2 4 8; do
            device_gemv --dtype bf16 --shape 8192x8192 --vectors $n --forms lib,skew,sumout | tee "$out/g.one"
            for i in 2 3; do
                g=$(awk -v a="$(pct "$out/g.one" $i)" -v b="$(pct "$out/g.one" 1)" \
                    'BEGIN { if (a != "" && b != "" && a != "W" && b != "W") printf "%.2f", a - b }')
                [ -z "$g" ] && [ "$guard" = ok ] && guard="not measured (N=$n)"
                [ -n "$g" ] && { ! ge "$g" -1 || ! ge 1 "$g"; } && guard="moved (N=$n: $g)"
            done
        done
        echo "== cutec run gemm (tn, AUTO; bf16) under both forms' variables, against float64"
        for s in "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
            device_late gemm "$s" && continue
            # shellcheck disable=SC2086
            r=$(CUTEC_GEMV_UNALIGNED_ROWS=skew CUTEC_GEMV_SPLIT_WARPS=output timeout 15 build/cutec run gemm --dtype bf16 \
                --out-dtype bf16 --layout tn $s --iters 20 2>&1 | grep -E "verified|wrong|rror|FAIL|time" | tr '\n' ' ')
            echo "$s: $r"
            echo "$r" | grep -q verified || bad=1
        done
        echo "== 5x100000 x3 at 132 forced splits: sumrow, sumout"
        device_gemv --dtype bf16 --shape 5x100000 --vectors 3 --splits 132 --forms sumrow,sumout
        grep -q WRONG "$out"/s4_*.one "$out"/s5_*.one 2>/dev/null && bad=1
        sn_b=$(two "$out/s4_bf16.one" 1 3) sk_b=$(two "$out/s4_bf16.one" 2 4)
        sn_f=$(two "$out/s4_f32.one" 1 3) sk_f=$(two "$out/s4_f32.one" 2 4)
        rr_b=$(two "$out/s5_bf16.one" 1 3) ro_b=$(two "$out/s5_bf16.one" 2 4)
        rr_f=$(two "$out/s5_f32.one" 1 3) ro_f=$(two "$out/s5_f32.one" 2 4)
        sb=$(diff2 "$sk_b" "$sn_b") sf=$(diff2 "$sk_f" "$sn_f") ob=$(diff2 "$ro_b" "$rr_b") of=$(diff2 "$ro_f" "$rr_f")
        echo "== means (% of the copy): 4097x8191 narrow/skew bf16 $sn_b/$sk_b, f32 $sn_f/$sk_f; 5x100000 sumrow/sumout bf16 $rr_b/$ro_b, f32 $rr_f/$ro_f; guard $guard"
        if [ "$bad" != 0 ]; then
            echo "decides: skew: revert (wrong)"
            echo "decides: sumout: revert (wrong)"
        elif [ "$guard" != ok ]; then
            echo "decides: skew: keep opt-in (guard $guard)"
            echo "decides: sumout: keep opt-in (guard $guard)"
        else
            decide skew "$sb" "$sf"
            decide sumout "$ob" "$of"
        fi
    fi
    device_end
} >"$log" 2>&1
tail -n 60 "$log"
