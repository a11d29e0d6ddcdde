#!/bin/sh
# Issue 16's every mark in one run (the lead, session 40): softmax, RMSNorm and LayerNorm forward
# and backward at 16384x4096, 4096x32768 and 1024x262144, cross-entropy forward and backward at
# 4096x32768 and 8192x131072, bf16, each bench beside a device copy of the same bytes and torch's
# eager form in its own process (each checks sampled rows against float64 before it times).
# About 200 s on one H200 (a bench ~9 s); log $OUT/census16.log, the table last.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-census16: skipped: no GPU here"; exit 0; }
log="$out/census16.log"
rows="$out/census16.rows"
start=$(date +%s) budget=${BUDGET_S:-220}
: >"$rows"
one() # op shape [--backward]
{
    device_late "$*" && return
    timeout 25 build/cutec bench "$1" --dtype bf16 --shape "$2" ${3:-} --iters 20 2>&1 | tee -a "$rows" | grep -E "^$1|WRONG|rror|FAIL"
}
{
    device_head
    for op in softmax rmsnorm layernorm; do
        for shape in 16384x4096 4096x32768 1024x262144; do
            one $op $shape
            one $op $shape --backward
        done
    done
    for shape in 4096x32768 8192x131072; do
        one cross-entropy $shape
        one cross-entropy $shape --backward
    done
    echo "== % of the copy (issue 16: forward 3.7 TB/s ~ 88%, softmax 3.8 ~ 90.5%, backward 3.3 ~ 78.5%, cross-entropy 3.5 ~ 83.3%)"
    for op in softmax rmsnorm layernorm cross-entropy; do
        for dir in fwd bwd; do
            line="$op $dir:"
            for shape in 16384x4096 4096x32768 1024x262144 8192x131072; do
                p=$(rows_pct "$rows" $op $dir $shape)
                [ -n "$p" ] && line="$line $shape $p"
            done
            echo "$line"
        done
    done
    device_end
} 2>&1 | tee "$log"
