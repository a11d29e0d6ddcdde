#!/bin/sh
# Issue 18, engineer attnf7 (session 36): the Hopper forward's tiles joined on the persistent
# grid (CUTEC_ATTN_FWD_JOIN=1, opt-in; hopper_fwd.c's consume_joined, hopper_plan.c's
# JOIN_TILES).  A tile's ends were two half batches, each a turn of the consumers' ring with a
# wait behind it: its last P V alone, then (after the epilogue) the next tile's S(0) alone.
# Joined, the next tile's S(0) and this tile's last P V go in one turn, one wait, and the
# epilogue runs beside the next tile's first softmax.  Counted (bench/RESULTS.md, attnf7):
# a 128 x 160 key tile's four GEMMs are 2,560 tensor cycles an SM (1,280 a warpgroup); a
# consumer warp's softmax 611 instructions, 82 MUFU.EX2 (656 cycles of its SMSP's quarter-rate
# unit); 8x16x4096 and 2x16x16384 are both 4,096 Q tiles (31.03 rounds of 132: the last round's
# 4 tiles cost 3%), 26 and 103 key tiles a Q tile.
# Steps: the float64 checks on the GPU with the form (more Q tiles than SMs, so that blocks
# walk several and every later tile starts in a join: d128 GQA at odd lengths, causal and
# not), then each shape's bench (causal and not; every row checked against float64 at 512 to
# 2048 sampled rows, d64's 192-row tiles so): the default then the form, each its own process,
# SDPA beside the default at 8x16x4096 and 16x32x2048 (not at 16k: the budget).
# After the 8x16x4096 rows, a diagnostic (wrong by design, no decision): d128 8x16x4096
# with CUTEC_ATTN_FWD_DIAG=nosoftmax, the key tiles without their softmax and O's rescale, so
# that its TFLOP/s is what the loop's GEMMs, loads and turns allow alone.
# Rule (the brief's), R = the form's TFLOP/s over the default's, no row WRONG:
#   R >= 1.01 at both d128 non-causal shapes and >= 0.995 at d64 non-causal: "make default"
#     not causal (JOIN_TILES[0] = true in hopper_plan.c); and if R >= 0.995 at every causal
#     row too, causal as well (JOIN_TILES[1] = true): the brief's "leads at both d128
#     non-causal shapes by 1% and loses nowhere by more than 0.5%";
#   R < 0.995 at every row: "delete" (consume_joined and its helpers, JOIN_TILES,
#     CUTEC_ATTN_FWD_JOIN, the tests' joined cases);
#   else "keep opt-in".
# Under ~90 s on one H200 after `make all tests` (BUDGET_S; a step that would pass it is
# skipped, saying so).  Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf7.log"
t0=$(date +%s)
budget=${BUDGET_S:-90}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
join="CUTEC_ATTN_FWD_JOIN=1"
s4k="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
s16k="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5"
s64="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
# the TFLOP/s of a bench log's causal (c) or non-causal (n) row ("" if missing or WRONG)
tops()
{
    awk -v k="$2" '/^(bf16|f16) / && !/WRONG/ && $(NF-3) ~ /^[0-9.]+$/ {
        if ((k == "c") == ($0 ~ / causal/)) { print $(NF-3); exit } }' "$1" 2>/dev/null
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b > 0) printf "%.4f", a / b }'; }
at_least() { awk -v r="$1" -v x="$2" 'BEGIN { exit !(r != "" && r >= x) }'; }
below() { awk -v r="$1" -v x="$2" 'BEGIN { exit !(r != "" && r < x) }'; }
# the form's ratio at shape $1 (4k, 16k, 64), row kind $2
r_of() { ratio "$(tops "$out/attnf7-$1-join.txt" "$2")" "$(tops "$out/attnf7-$1.txt" "$2")"; }
wrong() { grep -l "WRONG\|FAILED" "$out"/attnf7-[1-6c]*.txt 2>/dev/null | head -3; }
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    nvidia-smi -L >/dev/null 2>&1 || { echo "== no GPU: every step below skipped"; budget=0; }
    echo "== checks against float64 on the GPU, tiles joined (blocks walking 2-3 tiles each)"
    device_step 8 env $join build/cutec run attention --batch 2 --heads 16 --kv-heads 4 --seqlen 1100 --headdim 128 \
        --iters 1 | tee "$out/attnf7-check1.txt"
    device_step 6 env $join build/cutec run attention --batch 2 --heads 12 --kv-heads 3 --seqlen 777 --headdim 128 --causal \
        --iters 1 | tee "$out/attnf7-check2.txt"
    echo "== checks verified: $(cat "$out"/attnf7-check*.txt 2>/dev/null | grep -c 'verified against float64') of 2"
    echo "== d128 8x16x4096: the default (SDPA beside), tiles joined"
    device_step 20 build/cutec bench attention $s4k | tee "$out/attnf7-4k.txt"
    device_step 13 env $nosdpa $join build/cutec bench attention $s4k | tee "$out/attnf7-4k-join.txt"
    echo "== a diagnostic, wrong by design (CUTEC_ATTN_FWD_DIAG=nosoftmax: the key tiles without their softmax"
    echo "== and O's rescale): how fast the loop's GEMMs, loads and turns run alone, d128 8x16x4096"
    device_step 12 env $nosdpa CUTEC_ATTN_FWD_DIAG=nosoftmax build/cutec bench attention $s4k | tee "$out/attnf7-diag.txt"
    echo "== d128 2x16x16384: the default, tiles joined (SDPA off: the budget)"
    device_step 16 env $nosdpa build/cutec bench attention $s16k | tee "$out/attnf7-16k.txt"
    device_step 16 env $nosdpa $join build/cutec bench attention $s16k | tee "$out/attnf7-16k-join.txt"
    echo "== d64 16x32x2048: the default (SDPA beside), tiles joined"
    device_step 16 build/cutec bench attention $s64 | tee "$out/attnf7-64.txt"
    device_step 10 env $nosdpa $join build/cutec bench attention $s64 | tee "$out/attnf7-64-join.txt"
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    for f in 4k 4k-join 16k 16k-join 64 64-join; do
        echo "== $f: not causal $(tops "$out/attnf7-$f.txt" n), causal $(tops "$out/attnf7-$f.txt" c)"
    done
    n4=$(r_of 4k n) n16=$(r_of 16k n) n64=$(r_of 64 n) c4=$(r_of 4k c) c16=$(r_of 16k c) c64=$(r_of 64 c)
    what="joined/default: d128 4k x$n4 (causal x$c4), 16k x$n16 (causal x$c16), d64 x$n64 (causal x$c64)"
    diag=$(awk '/^bf16 / && !/ causal/ && $(NF-3) ~ /^[0-9.]+$/ { print $(NF-3); exit }' "$out/attnf7-diag.txt" 2>/dev/null)
    echo "== without the softmax (diagnostic): d128 4k not causal ${diag:-none} TFLOP/s, the default's $(tops "$out/attnf7-4k.txt" n)"
    bad=$(wrong)
    if [ -n "$bad" ]; then
        echo "decides: tiles joined: keep opt-in (a row WRONG in $bad: fix first; $what)"
    elif [ -z "$n4" ] || [ -z "$n16" ] || [ -z "$n64" ]; then
        echo "decides: tiles joined: keep opt-in (a figure missing: $what)"
    elif at_least "$n4" 1.01 && at_least "$n16" 1.01 && at_least "$n64" 0.995; then
        if at_least "$c4" 0.995 && at_least "$c16" 0.995 && at_least "$c64" 0.995; then
            echo "decides: tiles joined: make default, causal too ($what): JOIN_TILES = {true, true} in hopper_plan.c"
        else
            echo "decides: tiles joined: make default not causal ($what): JOIN_TILES[0] = true in hopper_plan.c"
        fi
    elif below "$n4" 0.995 && below "$n16" 0.995 && below "$n64" 0.995 && below "$c4" 0.995 && below "$c64" 0.995 &&
        { [ -z "$c16" ] || below "$c16" 0.995; }; then
        echo "decides: tiles joined: delete ($what): consume_joined, JOIN_TILES, CUTEC_ATTN_FWD_JOIN, the tests' joined cases"
    else
        echo "decides: tiles joined: keep opt-in ($what)"
    fi
} >"$log" 2>&1
tail -n 40 "$log"
