#!/bin/sh
# Issue 18's every mark in one run (the lead, session 41), each `cutec bench attention` row
# checked against float64 (a sample) and PyTorch SDPA timed beside it in the same process
# (bf16, gaussian inputs): the Hopper forward d128 8x16x4096 and 2x16x16384, d64 16x32x2048,
# d256 2x16x16384 (each bench prints causal and not); the backward d128 at 8x16x4096 and
# 2x16x16384; the SM80 forward d128 8x16x4096; decode (8 x 32 heads, KV 32k, d128; 32 and 8 KV
# heads) beside a device copy and SDPA.  About 200 s on one H200; log $OUT/census18.log.
# REST_MS=N (session 43): every timing of the forward and backward rows, ours and SDPA's, after
# N ms of an idle GPU, SDPA timed again after ours (`bench attention --rest`: both orders'
# table), so that neither side's figure depends on the power state the other left.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-census18: skipped: no GPU here"; exit 0; }
log="$out/census18.log"
start=$(date +%s) budget=${BUDGET_S:-200}
attn() # what ARGS: one bench's table rows
{
    what=$1
    shift
    echo "-- $what $(el_s)"
    rest=
    [ -n "${REST_MS:-}" ] && [ "$1" != --decode ] && rest="--rest $REST_MS"
    # shellcheck disable=SC2086
    device_late "$what" || timeout 60 build/cutec bench attention --iters 10 $rest "$@" 2>&1 |
        grep -E "^bf16|^decode|of SDPA|of 1st|copy|WRONG|rror"
}
{
    device_head
    attn "forward d128 8x16x4096" --headdim 128 --batch 8 --heads 16 --seqlen 4096
    attn "forward d128 2x16x16384" --headdim 128 --batch 2 --heads 16 --seqlen 16384
    attn "forward d64 16x32x2048" --headdim 64 --batch 16 --heads 32 --seqlen 2048
    attn "forward d256 2x16x16384" --headdim 256 --batch 2 --heads 16 --seqlen 16384
    attn "backward d128 8x16x4096" --bwd --headdim 128 --batch 8 --heads 16 --seqlen 4096
    attn "backward d128 2x16x16384" --bwd --headdim 128 --batch 2 --heads 16 --seqlen 16384
    attn "SM80 forward d128 8x16x4096" --variant sm80 --headdim 128 --batch 8 --heads 16 --seqlen 4096
    attn "decode 8x32x32768 d128 (32 and 8 KV heads)" --decode
    device_end
} 2>&1 | tee "$log"
