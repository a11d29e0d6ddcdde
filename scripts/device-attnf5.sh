#!/bin/sh
# Issue 18, engineer attnf5 (session 33): the Hopper forward's softmax beside the next S
# (CUTEC_ATTN_FWD_OVERLAP=s, opt-in: hopper_fwd.c's overlap_step; two S accumulators, 96-key
# tiles) against the default (d128: persistent, 160 keys; causal 128) and SDPA in one run,
# on an sm_90 GPU, under ~80 s after `make all tests` (BUDGET_S; a step that would pass it is
# skipped, saying so; output line-buffered).  First the form on the GPU against float64 at
# odd sizes (GQA, partial tiles, causal), then d128 8x16x4096 (non-causal and causal rows),
# then 2x16x16384; last, if time is left, the form without the warpgroups' turns
# (CUTEC_ATTN_FWD_OVERLAP=s,free) at 8x16x4096 and the default's order at 96-key tiles (not a
# decision: how much of a difference the tile size makes).
# Decides (TFLOP/s of the same run, each shape's rows):
#   non-causal: the form faster by more than 1% at 8x16x4096 and at 2x16x16384 -> make it the
#     default at d128 non-causal (hopper_plan.c, `bool overlap = ov ? ... : p->d == 128 &&
#     !cfg->causal;`); causal: faster by more than 1% at 8x16x4096 causal -> the default at
#     d128 causal (`... && cfg->causal`; both: `p->d == 128`);
#   s,free faster than s by more than 1% at 8x16x4096 (causal not slower) -> s,free is the
#     form to keep; else delete s,free;
#   slower by more than 1% at every row -> delete the form (overlap_step,
#     consume_tile_overlap, plan field overlap_s); else keep it opt-in.
# Logs under $OUT (default build/device-out); the log's tail is printed.
. scripts/device-common.sh
log="$out/attnf5.log"
t0=$(date +%s)
budget=${BUDGET_S:-80}
nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
ovl="CUTEC_ATTN_FWD_OVERLAP=s"
d128="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
long="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 4"
# the TFLOP/s of FILE's row for S=LEN, causal (c) or not (n): the field before the rows'
tf()
{
    [ -f "$1" ] || { echo 0; return; }
    awk -v s="S=$2" -v c="$3" '$0 ~ s" " && !/WRONG/ && (((c == "c") && / causal/) || ((c == "n") && !/ causal/)) \
        && $(NF-2) ~ /^[0-9]+$/ { print $(NF-3); exit }' "$1" | grep . || echo 0
}
# "faster" / "slower" / "even": A against B by 1%
cmp1()
{
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == 0 || b == 0) print "unmeasured";
        else if (a > 1.01 * b) print "faster"; else if (a < 0.99 * b) print "slower"; else print "even" }'
}
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    nvidia-smi -L >/dev/null 2>&1 || { echo "== no GPU: every step below skipped"; budget=0; }
    make -j16 all 2>&1 | grep -E "error|warning" | head -20
    echo "== the form on the GPU against float64 (GQA, 1100 and 777 keys: partial 96-key tiles)"
    device_step 6 env $ovl build/cutec run attention --batch 2 --heads 6 --kv-heads 3 --seqlen 1100 --headdim 128
    device_step 6 env $ovl build/cutec run attention --batch 2 --heads 4 --kv-heads 1 --seqlen 777 --headdim 128 --causal
    echo "== d128 8x16x4096: the default (SDPA beside), then the form"
    device_step 22 build/cutec bench attention $d128 | tee "$out/attnf5.def4k"
    device_step 13 env $nosdpa $ovl build/cutec bench attention $d128 | tee "$out/attnf5.ovl4k"
    echo "== d128 2x16x16384: the default, then the form (SDPA off)"
    device_step 14 env $nosdpa build/cutec bench attention $long | tee "$out/attnf5.def16k"
    device_step 14 env $nosdpa $ovl build/cutec bench attention $long | tee "$out/attnf5.ovl16k"
    echo "== if time is left: the form without the warpgroups' turns (=s,free), then the default's order at 96 keys"
    device_step 13 env $nosdpa CUTEC_ATTN_FWD_OVERLAP=s,free build/cutec bench attention $d128 | tee "$out/attnf5.free4k"
    device_step 13 env $nosdpa build/cutec bench attention $d128 --block-n 96 | tee "$out/attnf5.def96"
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    a=$(tf "$out/attnf5.ovl4k" 4096 n) b=$(tf "$out/attnf5.def4k" 4096 n)
    ac=$(tf "$out/attnf5.ovl4k" 4096 c) bc=$(tf "$out/attnf5.def4k" 4096 c)
    l=$(tf "$out/attnf5.ovl16k" 16384 n) lb=$(tf "$out/attnf5.def16k" 16384 n)
    lc=$(tf "$out/attnf5.ovl16k" 16384 c) lbc=$(tf "$out/attnf5.def16k" 16384 c)
    n4=$(cmp1 "$a" "$b") c4=$(cmp1 "$ac" "$bc") n16=$(cmp1 "$l" "$lb") c16=$(cmp1 "$lc" "$lbc")
    echo "== overlap against the default: 4k $a / $b ($n4), 4k causal $ac / $bc ($c4), 16k $l / $lb ($n16), 16k causal $lc / $lbc ($c16)"
    echo "== the default's order at 96 keys, 4k: $(tf "$out/attnf5.def96" 4096 n) / causal $(tf "$out/attnf5.def96" 4096 c)"
    f=$(tf "$out/attnf5.free4k" 4096 n) fc=$(tf "$out/attnf5.free4k" 4096 c)
    echo "== s,free 4k: $f / causal $fc (against s: $(cmp1 "$f" "$a") / $(cmp1 "$fc" "$ac"))"
    if [ "$(cmp1 "$f" "$a")" = unmeasured ]; then
        echo "decides: s,free unmeasured (cut by the time): keep it opt-in"
    elif [ "$(cmp1 "$f" "$a")" = faster ] && [ "$(cmp1 "$fc" "$ac")" != slower ]; then
        echo "decides: s,free is the better overlap (4k $f against $a): keep it, not s, where the form is made the default (hopper_plan.c: overlap_free true)"
    else
        echo "decides: s,free no better than s: delete its two lines (overlap_turn/overlap_pass's test, plan field overlap_free)"
    fi
    nc=no cz=no
    [ "$n4" = faster ] && [ "$n16" = faster ] && nc=yes
    [ "$c4" = faster ] && cz=yes
    case "$nc$cz" in
    yesyes) echo "decides: make CUTEC_ATTN_FWD_OVERLAP=s the default at d128, causal or not (hopper_plan.c: bool overlap = ov ? ... : p->d == 128;)" ;;
    yesno) echo "decides: make CUTEC_ATTN_FWD_OVERLAP=s the default at d128 non-causal (hopper_plan.c: bool overlap = ov ? ... : p->d == 128 && !cfg->causal;)" ;;
    noyes) echo "decides: make CUTEC_ATTN_FWD_OVERLAP=s the default at d128 causal (hopper_plan.c: bool overlap = ov ? ... : p->d == 128 && cfg->causal;)" ;;
    *) echo "decides: the default stays (the form against it: 4k $n4, 4k causal $c4, 16k $n16)" ;;
    esac
    if [ "$n4" = slower ] && [ "$c4" = slower ] && [ "$n16" = slower ] && [ "$(cmp1 "$f" "$b")" != faster ]; then
        echo "decides: delete CUTEC_ATTN_FWD_OVERLAP (s slower at every row, s,free not faster at 4k)"
    elif [ "$nc$cz" != yesyes ]; then
        echo "decides: keep CUTEC_ATTN_FWD_OVERLAP opt-in where not made the default (s,free against the default at 4k: $(cmp1 "$f" "$b") / causal $(cmp1 "$fc" "$bc"))"
    fi
} >"$log" 2>&1
tail -n 60 "$log"
