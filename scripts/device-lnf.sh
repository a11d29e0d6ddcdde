#!/bin/sh
# The pass of branch lnf on a GPU machine (issue 16: the forwards at 1024x262144, LayerNorm
# 74.7% of the copy where RMSNorm runs 85.4; cross-entropy fwd+bwd 8192x131072 81.4%), under
# 80 s on one H200 after `make all tests`.  The count: a cluster's block loads its 64 KB part,
# reduces, exchanges, writes and exits, three an SM; the SM's HBM loads stop whenever all
# three are past their loads.  With f the share of a block's life after its load, that is f^3
# of the time if they keep apart; LayerNorm's longer walks (~6.5 + ~10 instructions an
# element, RMSNorm ~4 + ~4.5, and weight and bias from L2 a chunk) make f larger.
# What the two mid passes measured (H200, 18:50 and 19:25 UTC, % of the copy; bench/RESULTS.md
# lnf): LayerNorm 1024x262144 74.8 / 74.6 -> hex 79.4 / 79.3 (32 KB parts, six blocks of 128
# threads an SM), split 77.1 / 77.2 (the part copied chunk by chunk, the walk starting on the
# first), both 80.8; softmax 93.6 -> hex 95.3; cross-entropy fwd+bwd 8192x131072 81.6 -> 84.0
# (the label's logit gathered at the part's first chunk), hex 84.5 -> 84.6, split with hex
# 77.1; RMSNorm 86.0 -> hex 84.9; quad 70.1 and chain 72.9 deleted.  Made the defaults
# (rows_compile.c's hex_parts, split_parts; cross_entropy.c's cluster form): hex for every
# forward but RMSNorm (whose weight is loaded with the row), split for LayerNorm's (late column
# inputs), the early gather; CUTEC_ROWS_HEX=0, CUTEC_ROWS_SPLIT=0, CUTEC_ROWS_EARLY=0 the old
# forms, CUTEC_ROWS_TRIAL=hex / split the new ones where they are not the default.
# This pass times each default beside its old form in one process (a device copy of the same
# bytes in each bench's run), after the GPU against float64 (`cutec run`: every element; each
# bench also checks sampled rows before it times them), one bench after another in this order
# until the budget is spent (~5 s a bench at 1024x262144, ~13 at 8192x131072): LayerNorm
# 1024x262144 default / both off / split off; softmax default / hex off; cross-entropy fwd+bwd
# 8192x131072 default / the three off (the session's start); RMSNorm default / hex; LayerNorm
# default and both off again; cross-entropy with hex off; LayerNorm beside PyTorch eager.
# The rule (points of the copy; LayerNorm's the mean of its turns):
#  hex:   d = default - CUTEC_ROWS_HEX=0 (LayerNorm: with split off; cross-entropy: with the
#         gather early) per op: below -1 on an op -> "revert for OP" (hex_parts leaves it
#         out), otherwise "keep";
#  split: d = LayerNorm's default - CUTEC_ROWS_SPLIT=0: below -0.5 -> "revert" (split_parts:
#         only under CUTEC_ROWS_TRIAL=split), otherwise "keep";
#  early: d = cross-entropy with hex off - with the three off: below -0.5 -> "revert"
#         (row_plan_forms: the cluster form only under a knob), otherwise "keep";
#  hex for RMSNorm: d = CUTEC_ROWS_TRIAL=hex - default >= 1.5 -> "make default" (hex_parts:
#         `(!with_row || rows_trial("hex"))` dropped), otherwise "keep 64 KB parts".
# A WRONG bench line decides "revert" for its form.  Logs under $OUT; nothing starts past
# $BUDGET seconds (62).
#   BUDGET=62 ITERS=10 sh scripts/device-lnf.sh
. scripts/device-common.sh
log="$out/lnf.log"
start=$(date +%s)
budget=${BUDGET:-62}
BENCH_TIMEOUT=22
# the % of the copy of `cutec bench OP --shape S [ARGS]` with the environment ENV ("-": none;
# else VAR=VALUE,VAR=VALUE) into $pct ("" if it failed or was skipped; "W" if wrong), its
# lines into the log
pct_of()
{
    e=$1 op=$2 s=$3
    shift 3
    echo "-- $e $op $s $*"
    (
        [ "$e" = - ] || for kv in $(echo "$e" | tr , ' '); do export "$kv"; done
        CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$op" --shape "$s" "$@"
    ) >"$out/lnf.one" 2>&1
    cat "$out/lnf.one"
    pct=$(rows_pct "$out/lnf.one" "$op" "" "$s")
}
# keep NAME D LIMIT WHAT: "decides: NAME: keep" unless D < LIMIT ("revert WHAT"); "" not timed
keep()
{
    awk -v name="$1" -v d="$2" -v lim="$3" -v what="$4" 'BEGIN {
        if (d == "") { print "decides: " name ": keep (not timed)"; exit }
        if (d ~ /W/) { print "decides: " name ": revert " what " (WRONG against float64)"; exit }
        printf "decides: %s: %s (%+.1f points)\n", name, d < lim ? "revert " what : "keep", d }'
}
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU here: nothing timed"
        for t in hex split early "hex for RMSNorm"; do echo "decides: $t: keep (no GPU)"; done
    else
        echo "== the GPU against float64 (every element)"
        for a in "- layernorm bf16 8x262152" "- softmax f16 8x262136" "- cross-entropy bf16 16x131080 --backward" \
            "CUTEC_ROWS_HEX=0 layernorm bf16 8x262136" "CUTEC_ROWS_TRIAL=hex rmsnorm bf16 8x262152"; do
            set -- $a # (the environment, the op, the dtype, the shape, more)
            e=$1 op=$2 d=$3 s=$4
            shift 4
            ( [ "$e" = - ] || export "$e"; timeout 15 build/cutec run "$op" --dtype "$d" --shape "$s" "$@" ) >"$out/lnf.one" 2>&1
            echo "$e: $(tail -n 1 "$out/lnf.one")"
            grep -q "verified (0 wrong)" "$out/lnf.one" || checked=no
        done
        L=1024x262144 X=8192x131072 OFF=CUTEC_ROWS_HEX=0,CUTEC_ROWS_SPLIT=0
        pct_of - layernorm $L && l0a=$pct
        pct_of $OFF layernorm $L && loa=$pct
        pct_of CUTEC_ROWS_SPLIT=0 layernorm $L && lh=$pct
        pct_of - softmax $L && s0=$pct
        pct_of CUTEC_ROWS_HEX=0 softmax $L && so=$pct
        pct_of - cross-entropy $X --backward && x0=$pct
        pct_of $OFF,CUTEC_ROWS_EARLY=0 cross-entropy $X --backward && xo=$pct
        pct_of - rmsnorm $L && r0=$pct
        pct_of CUTEC_ROWS_TRIAL=hex rmsnorm $L && rh=$pct
        pct_of $OFF layernorm $L && lob=$pct
        pct_of - layernorm $L && l0b=$pct
        pct_of CUTEC_ROWS_HEX=0 cross-entropy $X --backward && xe=$pct
        echo "== at $(($(date +%s) - start)) s: % of the copy: LayerNorm $L default $l0a / $l0b, hex and split off" \
            "$loa / $lob, split off $lh; softmax $s0, hex off $so; cross-entropy fwd+bwd $X $x0, all three off $xo," \
            "hex off $xe; RMSNorm $r0, hex $rh"
        l0=$(mean2 "$l0a" "$l0b") lo=$(mean2 "$loa" "$lob")
        if [ "${checked:-yes}" = no ]; then
            echo "decides: every new default: keep, but a check against float64 above failed: fix it first"
        else
            keep "hex for LayerNorm" "$(diff2 "$lh" "$lo")" -1 "for LayerNorm"
            keep "hex for softmax" "$(diff2 "$s0" "$so")" -1 "for softmax"
            keep "hex for cross-entropy" "$(diff2 "$x0" "$xe")" -1 "for cross-entropy"
            keep split "$(diff2 "$l0" "$lh")" -0.5 "(opt-in again)"
            keep early "$(diff2 "$xe" "$xo")" -0.5 "(the gather after the exchange)"
            awk -v d="$(diff2 "$rh" "$r0")" 'BEGIN {
                if (d == "") print "decides: hex for RMSNorm: keep 64 KB parts (not timed)"
                else if (d ~ /W/) print "decides: hex for RMSNorm: keep 64 KB parts (WRONG against float64)"
                else printf "decides: hex for RMSNorm: %s (%+.1f points)\n", (d >= 1.5 ? "make default" : "keep 64 KB parts"), d }'
            echo "the session's start to now: LayerNorm $(diff2 "$l0" "$lo"), cross-entropy fwd+bwd $(diff2 "$x0" "$xo") points"
        fi
        echo "== LayerNorm beside PyTorch eager (GB/s in its column), the default"
        bench_bf16 layernorm --shape $L
    fi
    device_end
    echo "== WRONG lines (rows against float64): $(grep -c WRONG "$log")"
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | grep -v "^# \(check\|time\|index\|  (allowed\)" | tail -n 90
