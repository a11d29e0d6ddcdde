#!/bin/sh
# The pass of branch skinny38b on a GPU machine (issue 17: the skinny shapes 4097x3x8191 and
# 3x5x100000 to 70% of a copy of the same bytes; H200, main b773e9c0: 4097x3x8191 bf16 49%,
# f32 71% of a large copy's 4.06 TB/s; 3x5x100000 bf16 0.0120 ms, f32 0.0105 ms).  Two opt-in
# forms of the GEMV rows kernel, each beside the default in the same process:
#   skew (CUTEC_GEMV_UNALIGNED_ROWS=skew, `--forms skew`): K-major rows that do not start
#        16-byte aligned (8191 bf16 or f32 a row: no row but every eighth, or fourth, aligned)
#        read as a scalar head, 16-byte vectors and a scalar tail (src/kernels/gemv/skew.c),
#        instead of the rows kernel's vectors of one element;
#   fused (CUTEC_GEMV_SPLIT_SUM=fused, `--forms fused`): split-K's ordered reduction in the
#        splitting kernel, by the last block of each row group (a counter and release/acquire
#        flags, parts.c), instead of a second kernel (the library's splits at 3x5x100000 on
#        132 SMs: 391 bf16 and 782 f32 with the second kernel, at most two an SM fused: 196
#        and 261; 4097x3x8191: 3, or 4 in the skew form).
# 3x5x100000 runs as 5x100000 with 3 vectors (B streamed; its rows are aligned: skew does not
# apply), 4097x3x8191 as 4097x8191 with 3.  "Of copy" is against a device copy of the same
# bytes in the same process: for 3x5x100000 (1.6 MB of bf16) that copy is itself launch- and
# latency-bound, and 70% of ITS rate is the mark (docs/gemv.md).
# Order: the GEMV tests, `cutec run gemv` of each form on the GPU against float64 (odd and
# prime K, many splits, the real shapes), `cutec run gemm` of both shapes through cutec_gemm's
# AUTO routing under both forms' variables (checked against float64; the default's figures
# are scripts/device-skinny.sh's), then `cutec bench gemv --forms` on both shapes and dtypes
# in two turns, then 8192x8192 with 1, 2, 4 and 8 vectors (narrow against skewfused: neither
# form applies there, so this is the noise and the absolute figures against earlier passes),
# then 3x5x100000 at 132 forced splits and at the second kernel's count (for the fused form's
# split count: not in the rule); nothing past $BUDGET (85) s (a guard not measured keeps both
# forms opt-in).
# The rule (points of the copy, each form's mean over the turns):
#   skew:  skew - narrow at 4097x8191: both dtypes >= +1 -> "make default" (lib.c, gemv_call:
#          the CUTEC_GEMV_UNALIGNED_ROWS read's default 0 -> 1); mean below -0.5 -> "delete";
#          else "keep opt-in".
#   fused: fused - narrow at 5x100000: both dtypes >= +1, and at 4097x8191 neither fused -
#          narrow nor skewfused - skew below -1 -> "make default" (gemv_call: the
#          CUTEC_GEMV_SPLIT_SUM read's default 0 -> 1); mean over the six below -0.5 ->
#          "delete"; else "keep opt-in".
#   guard: 8192x8192: any |skewfused - narrow| over 1 -> "keep opt-in (guard moved)".
# A WRONG row or a failed check decides "revert (wrong)" for both.
#   BUDGET=85 sh scripts/device-skinny38b.sh
. scripts/device-common.sh
log="$out/skinny38b.log"
start=$(date +%s)
budget=${BUDGET:-85}
GEMV_TIMEOUT=20
TEST_TIMEOUT=40
bad=0
# pct FILE I: the % of the copy of the I-th row of a bench (W where WRONG or failed, "" where
# none)
pct()
{
    grep -E '%|failed: no time' "$1" 2>/dev/null | grep -v "^#" | sed -n "$2p" |
        awk '{ if (/WRONG|failed/) print "W"; else { p = $NF; sub("%", "", p); print p } }'
}
# acc NAME VALUE: the figure added to $NAME's list (sum and count kept in NAME_s, NAME_n)
acc()
{
    case "$2" in W) bad=1 ;; "") ;; *) eval "$1_s=\$(awk -v a=\"\${$1_s:-0}\" -v b=\"$2\" 'BEGIN { print a + b }')"
                                      eval "$1_n=\$((\${$1_n:-0} + 1))" ;; esac
}
mean() { eval "awk -v s=\"\${$1_s:-0}\" -v n=\"\${$1_n:-0}\" 'BEGIN { if (n) printf \"%.2f\", s / n }'"; }
sub2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "") printf "%.2f", a - b }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a >= b) }'; }
{
    device_begin
    if ! device_gpu; then
        echo "decides: skew: keep opt-in (no GPU)"
        echo "decides: fused: keep opt-in (no GPU)"
    else
        device_tests kernels/gemv/gemv_test
        grep -q " 0 failed" "$out/gemv_test.log" || bad=1
        echo "== cutec run gemv on the GPU, every row (or one in a few) against float64"
        for a in "bf16 4097x8191 3 --unaligned skew" "f32 4097x8191 3 --unaligned skew --reduction fused" \
            "bf16 5x100000 3 --reduction fused" "f32 5x100003 3 --reduction fused --unaligned skew" \
            "bf16 1x2111 8 --splits 33 --reduction fused" "f16 37x1009 1 --unaligned skew --reduction fused --splits 3" \
            "f32 8x7 5 --unaligned skew"; do
            set -- $a
            d=$1 s=$2 n=$3
            shift 3
            r=$(device_gemv_run --dtype "$d" --shape "$s" --vectors "$n" "$@")
            echo "$r"
            echo "$r" | grep -q "(0 wrong" || bad=1
        done
        echo "== cutec run gemm (tn, AUTO), against float64"
        for d in bf16 f32; do
            for f in "CUTEC_GEMV_SPLIT_SUM=fused CUTEC_GEMV_UNALIGNED_ROWS=skew"; do
                for s in "--m 4097 --n 3 --k 8191" "--m 3 --n 5 --k 100000"; do
                    device_late gemm "$d $f $s" && continue
                    # shellcheck disable=SC2086
                    r=$(env $f timeout 20 build/cutec run gemm --dtype $d --out-dtype $d --layout tn $s --iters 20 2>&1 |
                        grep -E "verified|wrong|rror|FAIL|ms" | tr '\n' ' ')
                    echo "$d ${f:-default} $s: $r"
                    echo "$r" | grep -q verified || bad=1
                done
            done
        done
        for turn in 1 2; do
            for d in bf16 f32; do
                echo "== turn $turn, $d 4097x8191 x3: narrow, fused, skew, skewfused"
                device_gemv --dtype $d --shape 4097x8191 --vectors 3 --forms narrow,fused,skew,skewfused |
                    tee "$out/t.one"
                acc "n4_$d" "$(pct "$out/t.one" 1)"
                acc "f4_$d" "$(pct "$out/t.one" 2)"
                acc "s4_$d" "$(pct "$out/t.one" 3)"
                acc "sf4_$d" "$(pct "$out/t.one" 4)"
                echo "== turn $turn, $d 5x100000 x3: narrow, fused"
                device_gemv --dtype $d --shape 5x100000 --vectors 3 --forms narrow,fused | tee "$out/t.one"
                acc "n5_$d" "$(pct "$out/t.one" 1)"
                acc "f5_$d" "$(pct "$out/t.one" 2)"
            done
        done
        echo "== guard: 8192x8192 bf16, narrow and skewfused (neither applies)"
        guard=ok
        for n in 1 2 4 8; do
            device_gemv --dtype bf16 --shape 8192x8192 --vectors $n --forms narrow,skewfused | tee "$out/t.one"
            g=$(sub2 "$(pct "$out/t.one" 2)" "$(pct "$out/t.one" 1)")
            [ -z "$g" ] && [ "$guard" = ok ] && guard="not measured (N=$n)"
            [ -n "$g" ] && ! ge "$g" -1 && guard="moved (N=$n: $g)"
            [ -n "$g" ] && ! ge 1 "$g" && guard="moved (N=$n: $g)"
        done
        echo "== 5x100000 x3, forced splits (the fused form's library choice: at most two an SM; the second kernel's: 391 bf16, 782 f32)"
        for sp in "bf16 132" "bf16 391" "f32 132" "f32 782"; do
            set -- $sp
            device_gemv --dtype $1 --shape 5x100000 --vectors 3 --splits $2 --forms narrow,fused
        done
        echo "== registers and spills (ptxas, sm_90a)"
        for a in "bf16 --vectors 3 --unaligned skew" "f32 --vectors 3 --unaligned skew" \
            "bf16 --vectors 3 --splits 40 --reduction fused" "bf16 --vectors 3 --unaligned skew --splits 3 --reduction fused"; do
            # shellcheck disable=SC2086
            echo "$a: $(build/cutec compile gemv --dtype $a --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
        done
        echo "== means (% of the copy): 4097x8191 narrow/fused/skew/skewfused bf16 $(mean n4_bf16)/$(mean f4_bf16)/$(mean s4_bf16)/$(mean sf4_bf16), f32 $(mean n4_f32)/$(mean f4_f32)/$(mean s4_f32)/$(mean sf4_f32); 5x100000 narrow/fused bf16 $(mean n5_bf16)/$(mean f5_bf16), f32 $(mean n5_f32)/$(mean f5_f32); guard $guard"
        sb=$(sub2 "$(mean s4_bf16)" "$(mean n4_bf16)") sf=$(sub2 "$(mean s4_f32)" "$(mean n4_f32)")
        fb=$(sub2 "$(mean f5_bf16)" "$(mean n5_bf16)") ff=$(sub2 "$(mean f5_f32)" "$(mean n5_f32)")
        f4b=$(sub2 "$(mean f4_bf16)" "$(mean n4_bf16)") f4f=$(sub2 "$(mean f4_f32)" "$(mean n4_f32)")
        g4b=$(sub2 "$(mean sf4_bf16)" "$(mean s4_bf16)") g4f=$(sub2 "$(mean sf4_f32)" "$(mean s4_f32)")
        echo "== skew - narrow at 4097x8191: bf16 $sb, f32 $sf; fused - narrow at 5x100000: bf16 $fb, f32 $ff; at 4097x8191: $f4b $f4f (narrow), $g4b $g4f (skew)"
        if [ "$bad" != 0 ]; then
            echo "decides: skew: revert (wrong)"
            echo "decides: fused: revert (wrong)"
        elif [ "$guard" != ok ]; then
            echo "decides: skew: keep opt-in (guard $guard)"
            echo "decides: fused: keep opt-in (guard $guard)"
        else
            sm=$(awk -v a="$sb" -v b="$sf" 'BEGIN { if (a != "" && b != "") printf "%.2f", (a + b) / 2 }')
            if ge "$sb" 1 && ge "$sf" 1; then
                echo "decides: skew: make default (bf16 $sb, f32 $sf points)"
            elif [ -n "$sm" ] && ! ge "$sm" -0.5; then
                echo "decides: skew: delete (mean $sm points)"
            else
                echo "decides: skew: keep opt-in (bf16 $sb, f32 $sf points)"
            fi
            fm=$(awk -v a="$fb $ff $f4b $f4f $g4b $g4f" 'BEGIN { n = split(a, x, " "); for (i = 1; i <= n; i++) s += x[i]
                if (n) printf "%.2f", s / n }')
            if ge "$fb" 1 && ge "$ff" 1 && ge "$f4b" -1 && ge "$f4f" -1 && ge "$g4b" -1 && ge "$g4f" -1; then
                echo "decides: fused: make default (5x100000 bf16 $fb, f32 $ff; 4097x8191 $f4b $f4f $g4b $g4f points)"
            elif [ -n "$fm" ] && ! ge "$fm" -0.5; then
                echo "decides: fused: delete (mean $fm points)"
            else
                echo "decides: fused: keep opt-in (5x100000 bf16 $fb, f32 $ff; 4097x8191 $f4b $f4f $g4b $g4f points)"
            fi
        fi
    fi
    device_end
} >"$log" 2>&1
tail -n 90 "$log"
