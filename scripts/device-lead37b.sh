#!/bin/sh
# The lead's last pass of session 37 (about 90 s on one H200 after `make all tests`; log
# $OUT/lead37b.log): prof38's first suggestion for the block-scaled fp8 GEMM, re-timing
# cuBLASLt's tile (128 x 160, K 128 a stage, 2x1 clusters: 5 stages of 36 KB where the
# library's 256 x 128 1x2 holds 3 of 48) with today's loop, beside the library's pick, two pairs
# at 4096x7168x16384 and 8192^3, each checked against float64 first; then the causal attention
# backward at 4x16x8192 d128, two kernels and fused (between the 4k and 16k rows of lead37).
# Decides: "decides: 128x160 2x1 ..." when it is at least 1 point of cuBLASLt ahead of the
# library's pick in both pairs at both shapes (the flip: the block-scaled pick in hopper_auto.c).
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead37b: skipped: no GPU here"; exit 0; }
log="$out/lead37b.log"
start=$(date +%s) budget=${BUDGET_S:-100} iters=20
pct() { awk -v s="$2" '$1 == s && $2 ~ /^hopper/ && $NF == "ok" { print $5 + 0; exit }' "$1"; }
{
    device_head
    echo "== 1. against float64 (odd sizes, both tiles) $(el_s)"
    for t in "" "--tile 128x160x128 --cluster 2x1"; do
        # shellcheck disable=SC2086
        timeout 30 build/cutec run gemm --variant hopper --dtype e4m3 --out-dtype bf16 --layout tn --scale block \
            --m 1000 --n 1100 --k 1024 $t 2>&1 | tail -n 1
    done
    echo "== 2. two pairs: the library's pick, 128x160 2x1 $(el_s)"
    for r in 1 2; do
        CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 25 --scale block --sizes 4096x7168x16384,8192 >"$out/lib-$r.txt"
        CUTEC_TORCH_SCALED_MM=/dev/null fp8_bench 25 --scale block --sizes 4096x7168x16384,8192 --tile 128x160x128 \
            --cluster 2x1 >"$out/t160-$r.txt"
        grep -E "^ *(4096|8192) " "$out/lib-$r.txt" "$out/t160-$r.txt"
    done
    echo "== 3. causal backward 4x16x8192 d128 $(el_s)"
    for form in two fused; do
        device_late "$form" && continue
        CUTEC_ATTN_BWD_FORM=$form timeout 30 build/cutec run attention --bwd --causal --batch 4 --heads 16 \
            --seqlen 8192 --headdim 128 --iters 10 2>&1 | tail -n 1 | sed "s/^/$form: /"
    done
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
ahead=1
for r in 1 2; do for s in 4096 8192; do
    a=$(pct "$out/lib-$r.txt" $s) b=$(pct "$out/t160-$r.txt" $s)
    echo "pair $r, $s: library $a, 128x160 2x1 $b (% of cuBLASLt)"
    awk -v a="$a" -v b="$b" 'BEGIN { exit !(a != "" && b != "" && b >= a + 1) }' || ahead=0
done; done
if [ "$ahead" = 1 ]; then echo "decides: 128x160 2x1 the block-scaled pick (hopper_auto.c)"
else echo "decides: the library's block-scaled pick stays"; fi
