#!/bin/sh
# Engineer desc (session 35): wgmma's shared-memory descriptors out of the loops,
# CUTEC_WGMMA_DESC=stage (opt-in; src/atom/wgmma_emit.c, desc_per_stage: its default 0 ->
# 1 is the flip).  The default builds every wgmma's 64-bit descriptor from its operand's
# address ((addr >> 4) & 0x3fff | the layout's bits); the per-stage form builds the low word
# of the tensor's base once and adds each k-block's offset in 16-byte units to it, the high
# word a constant.  SASS (ptxas 13, sm_90a, nvdisasm; a consumer warp's key-tile loop,
# unmasked / masked tile): attention d64 454 -> 432 / 568 -> 546, d64 causal 450 -> 428 /
# 605 -> 583, d128 608 -> 562 / 746 -> 700, d128 causal 524 -> 484 / 682 -> 642; the bf16
# Hopper GEMM's k-loop (4096^3) 72 -> 60; the backward d128's loops 1148 -> 1040 and 842 ->
# 764; the block-scaled e4m3 GEMM's k-loop 268 -> 238.  No spills, the same registers
# (attention d64 128, d128 and the GEMMs 168).
# Here: the float64 checks on the GPU with the per-stage form (attention d64 causal GQA at
# an odd length, d128 GQA, the Hopper GEMM at an odd size; wgmma_test's GPU cases check both
# forms in the lead's suite), then
# each pair (the default, then CUTEC_WGMMA_DESC=stage, one process each, back to back):
# attention d64 16x32x2048 and d128 8x16x4096 (causal and not: four pairs), the bf16 Hopper
# GEMM at 4096^3 (one pair).  R = stage's TFLOP/s over the default's.
# Rule (no check failed, no row WRONG): R >= 1.01 in every pair and none < 0.995: "make
# default"; R < 0.995 in every pair: "delete" (desc_per_stage and stage_descriptor, the
# test's second pass); else "keep opt-in".
# Under ~80 s on one H200 after `make all tests` (BUDGET_S; a step that would pass it is
# skipped, saying so).  Logs under $OUT (default build/device-out); the log's tail printed.
. scripts/device-common.sh
log="$out/desc.log"
t0=$(date +%s)
budget=${BUDGET_S:-80}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
d64="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
d128="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
st="CUTEC_WGMMA_DESC=stage"
# the TFLOP/s of a GEMM bench log's hopper row checked ok
gemm_tops() { awk '$2 == "hopper" && $NF == "ok" && $4 ~ /^[0-9.]+$/ { print $4; exit }' "$1" 2>/dev/null; }
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    echo "== checks against float64 on the GPU, descriptors a stage"
    bad=0
    for c in "run attention --batch 2 --heads 4 --kv-heads 1 --seqlen 777 --headdim 64 --causal --iters 1" \
             "run attention --batch 1 --heads 4 --kv-heads 2 --seqlen 1100 --headdim 128 --iters 1" \
             "run gemm --dtype bf16 --layout tnt --variant hopper --m 1111 --n 1000 --k 1000 --iters 1"; do
        # shellcheck disable=SC2086
        case $c in *gemm*) lim=8 ;; *) lim=5 ;; esac
        r=$(device_step $lim env $st build/cutec $c)
        echo "$r"
        echo "$r" | grep -qE "verified" && ! echo "$r" | grep -qE "WRONG|[1-9][0-9]* wrong|FAIL" || bad=1
    done
    echo "== pairs: the default, then $st"
    device_step 10 env $nosdpa build/cutec bench attention $d64 | tee "$out/desc-d64.txt"
    device_step 10 env $nosdpa $st build/cutec bench attention $d64 | tee "$out/desc-d64-stage.txt"
    device_step 13 env $nosdpa build/cutec bench attention $d128 | tee "$out/desc-d128.txt"
    device_step 13 env $nosdpa $st build/cutec bench attention $d128 | tee "$out/desc-d128-stage.txt"
    g="bench gemm --dtype bf16 --layout tn --variants hopper --sizes 4096 --iters 10"
    # shellcheck disable=SC2086
    device_step 8 build/cutec $g | tee "$out/desc-gemm.txt"
    # shellcheck disable=SC2086
    device_step 8 env $st build/cutec $g | tee "$out/desc-gemm-stage.txt"
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    rs=""
    for p in "d64 n" "d64 c" "d128 n" "d128 c"; do
        set -- $p
        a=$(attn_tops "$out/desc-$1.txt" "$2") b=$(attn_tops "$out/desc-$1-stage.txt" "$2") r=$(ratio "$b" "$a")
        echo "== $1 $([ "$2" = c ] && echo causal || echo "not causal"): default $a, stage $b TFLOP/s: x$r"
        rs="$rs ${r:-none}"
    done
    a=$(gemm_tops "$out/desc-gemm.txt") b=$(gemm_tops "$out/desc-gemm-stage.txt") r=$(ratio "$b" "$a")
    echo "== GEMM 4096^3: default $a, stage $b TFLOP/s: x$r"
    rs="$rs ${r:-none}"
    flip="desc_per_stage's default in src/atom/wgmma_emit.c (cute_env_choice_err's 0 -> 1)"
    echo "$rs" | awk -v bad="$bad" -v flip="$flip" -v rs="$rs" '{
        n = 0; up = 0; down = 0; none = 0
        for (i = 1; i <= NF; i++) { n++; if ($i == "none") none++; else { if ($i >= 1.01) up++; if ($i < 0.995) down++ } }
        if (bad) print "decides: CUTEC_WGMMA_DESC=stage: keep opt-in (a GPU check failed or did not run; ratios" rs ")"
        else if (none) print "decides: CUTEC_WGMMA_DESC=stage: keep opt-in (a pair without figures; ratios" rs ")"
        else if (up == n && down == 0) print "decides: CUTEC_WGMMA_DESC=stage: make default (ratios" rs "): " flip
        else if (down == n) print "decides: CUTEC_WGMMA_DESC=stage: delete (ratios" rs "): desc_per_stage, stage_descriptor, wgmma_test'"'"'s second pass"
        else print "decides: CUTEC_WGMMA_DESC=stage: keep opt-in (ratios" rs ")" }'
} >"$log" 2>&1
tail -n 40 "$log"
