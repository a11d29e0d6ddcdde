#!/bin/sh
# Issue 18, engineer attnf6 (session 35): the Hopper forward's mask and epilogue, counted in
# SASS (bench/RESULTS.md, attnf6; ptxas 13, sm_90a, instructions of a consumer warp):
#   the mask in 32 bits with a limit a row (softmax.c; the default now, a plain improvement):
#     d64 causal's diagonal tile 240 -> 150 instructions (key-tile loop 739 -> 649), d128
#     243 -> 153 (803 -> 711);
#   CUTEC_ATTN_FWD_SPLIT=1 (opt-in): the key-tile loop in two, the tiles no mask touches
#     without the mask's branch (d64 causal 450 a tile against 499; d128 causal 524 against
#     558), then the masked ones each masked (605 against 649; 682 against 711); not
#     causal, Sk's partial last tile alone in the second (d64 454 against 463);
#   CUTEC_ATTN_FWD_FINISH=fast (opt-in): the lean epilogue, 1 / l and log2 l by MUFU, not
#     IEEE, and the tile's index divided once (d64 85 instructions fewer a Q tile outside the
#     key-tile loop, d128 84; causal 89 and 76, but ptxas then moved their key-tile loop off
#     the uniform datapath: 10 and 17 more a key tile).
# First the forms on the GPU against float64 (odd lengths, GQA, causal and not), then d64
# 16x32x2048 and d128 8x16x4096 (the bench's non-causal and causal rows, every row checked):
# the default with SDPA beside, then each form, each its own process, back to back.
# Rule, for each form and row kind (causal, not causal), no row WRONG: >= 1.01 x the
# default at both shapes, or at one and >= 0.995 x at the other: "make default" (the
# one-line flips in hopper_plan.c: SPLIT_MASK and FAST_FINISH, each {not causal, causal}); below
# 0.995 x at both: "delete"; else (or a figure missing) "keep opt-in".
# Under ~80 s on one H200 after `make all tests` (BUDGET_S; a step that would pass it is
# skipped, saying so).  Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf6.log"
t0=$(date +%s)
budget=${BUDGET_S:-80}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
d64="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
d128="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
# the TFLOP/s of a bench log's causal (c) or non-causal (n) row ("" if missing or WRONG)
tops()
{
    awk -v k="$2" '/^(bf16|f16) / && !/WRONG/ && $(NF-3) ~ /^[0-9.]+$/ {
        if ((k == "c") == ($0 ~ / causal/)) { print $(NF-3); exit } }' "$1" 2>/dev/null
}
# ratio A B: A / B (empty when either is)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b > 0) printf "%.4f", a / b }'; }
at_least() { awk -v r="$1" -v x="$2" 'BEGIN { exit !(r != "" && r >= x) }'; }
decide() # FORM KIND(c|n) NAME FLIP
{
    r64=$(ratio "$(tops "$out/attnf6-d64-$1.txt" "$2")" "$(tops "$out/attnf6-d64.txt" "$2")")
    r128=$(ratio "$(tops "$out/attnf6-d128-$1.txt" "$2")" "$(tops "$out/attnf6-d128.txt" "$2")")
    what="d64 x$r64, d128 x$r128 of the default"
    if [ -z "$r64" ] || [ -z "$r128" ]; then echo "decides: $3: keep opt-in (no figure: $what)"
    elif { at_least "$r64" 1.01 && at_least "$r128" 0.995; } || { at_least "$r128" 1.01 && at_least "$r64" 0.995; }; then
        echo "decides: $3: make default ($what): $4 in hopper_plan.c"
    elif ! at_least "$r64" 0.995 && ! at_least "$r128" 0.995; then
        echo "decides: $3: delete ($what)"
    else echo "decides: $3: keep opt-in ($what)"; fi
}
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    nvidia-smi -L >/dev/null 2>&1 || { echo "== no GPU: every step below skipped"; budget=0; }
    echo "== checks against float64 on the GPU (GQA, odd lengths: partial key tiles; the default, the split, the fast finish)"
    device_step 5 build/cutec run attention --batch 2 --heads 4 --kv-heads 1 --seqlen 1100 --headdim 128 --causal --iters 1
    device_step 5 env CUTEC_ATTN_FWD_SPLIT=1 build/cutec run attention --batch 1 --heads 4 --kv-heads 2 --seqlen 777 \
        --headdim 64 --causal --iters 1
    device_step 5 env CUTEC_ATTN_FWD_FINISH=fast build/cutec run attention --batch 1 --heads 4 --kv-heads 2 --seqlen 777 \
        --headdim 64 --iters 1
    echo "== d64 16x32x2048: the default (SDPA beside), the split, the fast finish"
    device_step 20 build/cutec bench attention $d64 | tee "$out/attnf6-d64.txt"
    device_step 11 env $nosdpa CUTEC_ATTN_FWD_SPLIT=1 build/cutec bench attention $d64 | tee "$out/attnf6-d64-split.txt"
    device_step 11 env $nosdpa CUTEC_ATTN_FWD_FINISH=fast build/cutec bench attention $d64 | tee "$out/attnf6-d64-fast.txt"
    echo "== d128 8x16x4096: the default (SDPA beside), the split, the fast finish"
    device_step 20 build/cutec bench attention $d128 | tee "$out/attnf6-d128.txt"
    device_step 12 env $nosdpa CUTEC_ATTN_FWD_SPLIT=1 build/cutec bench attention $d128 | tee "$out/attnf6-d128-split.txt"
    device_step 12 env $nosdpa CUTEC_ATTN_FWD_FINISH=fast build/cutec bench attention $d128 | tee "$out/attnf6-d128-fast.txt"
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    for f in d64 d64-split d64-fast d128 d128-split d128-fast; do
        echo "== $f: not causal $(tops "$out/attnf6-$f.txt" n), causal $(tops "$out/attnf6-$f.txt" c)"
    done
    decide split c "CUTEC_ATTN_FWD_SPLIT, causal" "SPLIT_MASK[1] = true"
    decide split n "CUTEC_ATTN_FWD_SPLIT, not causal" "SPLIT_MASK[0] = true"
    decide fast c "CUTEC_ATTN_FWD_FINISH=fast, causal" "FAST_FINISH[1] = true"
    decide fast n "CUTEC_ATTN_FWD_FINISH=fast, not causal" "FAST_FINISH[0] = true"
} >"$log" 2>&1
tail -n 40 "$log"
