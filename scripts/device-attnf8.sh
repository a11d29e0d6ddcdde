#!/bin/sh
# Issue 18, engineer attnf8 (session 37; written without a GPU pass, for the next session's
# first): the Hopper forward at d128 non-causal, the softmax's exp2s shared between MUFU and
# the FMA pipe, its row sums by the tensor cores.  Counted (bench/RESULTS.md, attnf8; ptxas 13,
# sm_90a, a consumer warp's unmasked key tile of 128 x 160): the default 608 instructions, 82
# MUFU.EX2 (656 cycles of its SMSP's quarter-rate unit, 51% of the tile's 2,560 tensor
# cycles).  The opt-in forms timed here (hopper_plan.c's EXP2_POLY / ROWSUM_MMA their flips):
#   poly16 / poly8 / poly4  CUTEC_ATTN_FWD_EXP2=polyN: every Nth column of a thread's row of P
#          in the unmasked key tiles by FlashAttention 4's polynomial 2^x on the FMA pipe (8
#          instructions for MUFU's one): the loop 637 / 679 / 749 instructions, 78 / 72 / 62
#          MUFU.EX2;
#   lmma   CUTEC_ATTN_FWD_ROWSUM=mma: the row sums l by the tensor cores, P's bf16 values times
#          a 16 x 8 tile of ones (ten 64x8x16 RS wgmmas beside each P V, one descriptor), a Q
#          tile's first key tile exact: the loop 551 instructions (no FADD; 28 HGMMA); past
#          the first tile the LSE to 2^-9 of the rounded mass (hopper_plan.c's ROWSUM_MMA),
#          so never made default here: the lead's word;
#   and the diagnostics of $DIAGS, wrong by design (their rows WRONG), no decision: what the
#   unmasked tiles' softmax costs without its exp2s (CUTEC_ATTN_FWD_DIAG=noexp: P = the
#   exponent, 82 -> 2 MUFU, the loop 528 instructions; the most any share of the exp2s moved
#   off MUFU could win) and without its row sums (=nosum: 78 FADD fewer, the loop 530; the
#   most the row sums on the tensor cores could win).  The two take the same number of
#   instructions out, of different pipes: alike, the softmax pays its issue; noexp far
#   ahead, MUFU's quarter rate bounds it (and the polynomial has room).
# Steps: the float64 checks on the GPU with poly4 (every code path of the polynomial) and the
# row sums by the tensor cores together (GQA at odd lengths, causal and not), then the default
# at 8x16x4096 d128 (SDPA beside) and each form of $FORMS (default "poly8 lmma"; poly16 and
# poly4 besides), the diagnostics of $DIAGS (default "noexp nosum"),
# then 2x16x16384 d128 and 16x32x2048 d64, the default and each form, as far as the budget
# goes (every bench row checked against float64 at sampled rows; each its own process).
# Rule (the brief's), per form, R = its TFLOP/s over the default's, no row WRONG:
#   R >= 1.01 at both d128 non-causal shapes and >= 0.995 at d64 non-causal: "make default"
#     not causal (EXP2_POLY[0] in hopper_plan.c: the form's index in mufu|poly16|poly8|poly4),
#     causal too (EXP2_POLY[1]) where R >= 0.995 at every causal row measured;
#   R < 0.995 at every row measured: "delete";
#   else "keep opt-in"; lmma at most "keep opt-in" (its LSE's precision first).
# Under ~90 s on one H200 after `make all tests` (BUDGET_S; a step that would pass it is
# skipped, saying so: the last shapes' forms first; at 90 s the 4k rows, the diagnostics and
# 16k's default run, so a form can be deleted but not made default: BUDGET_S=150 runs every
# step, or DIAGS="" leaves the diagnostics out).  Logs under $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/attnf8.log"
t0=$(date +%s)
budget=${BUDGET_S:-150}
forms=${FORMS:-poly8 lmma}
diags=${DIAGS-noexp nosum}
s4k="--batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 10"
s16k="--batch 2 --heads 16 --seqlen 16384 --headdim 128 --iters 5"
s64="--batch 16 --heads 32 --seqlen 2048 --headdim 64 --iters 10"
env_of()
{
    case $1 in
    poly*) echo CUTEC_ATTN_FWD_EXP2=$1 ;;
    lmma) echo CUTEC_ATTN_FWD_ROWSUM=mma ;;
    noexp | nosum) echo CUTEC_ATTN_FWD_DIAG=$1 ;;
    esac
}
index_of() { case $1 in poly16) echo 1 ;; poly8) echo 2 ;; poly4) echo 3 ;; esac; }
# bench SHAPE ARGS FORM SECONDS: the default (FORM "", SDPA beside at 4k) or a form, into
# attnf8-SHAPE[-FORM].txt
bench() { attn_bench attnf8 4k "$@"; }
decide() # FORM
{
    attn_figures attnf8 "$1"
    if [ -n "$bad" ]; then
        echo "decides: $1: keep opt-in (a row WRONG in $bad: fix first; $what)"
    elif [ "$1" = lmma ] && at_least "$n4" 1.01 && at_least "$n16" 1.01; then
        echo "decides: $1: keep opt-in, faster ($what): ROWSUM_MMA in hopper_plan.c if the lead takes its LSE past the first key tile (bench/RESULTS.md, attnf8)"
    elif at_least "$n4" 1.01 && at_least "$n16" 1.01 && at_least "$n64" 0.995; then
        if at_least "$c4" 0.995 && { [ -z "$c16" ] || at_least "$c16" 0.995; } && { [ -z "$c64" ] || at_least "$c64" 0.995; }; then
            echo "decides: $1: make default, causal too ($what): EXP2_POLY = {$(index_of "$1"), $(index_of "$1")} in hopper_plan.c"
        else
            echo "decides: $1: make default not causal ($what): EXP2_POLY[0] = $(index_of "$1") in hopper_plan.c"
        fi
    elif [ -n "$n4$c4" ] && [ "$slower" = 1 ]; then
        case $1 in
        lmma) echo "decides: $1: delete ($what): rowsum_mma (hopper_fwd.c's ones, acc_l, write_ones, rows_from_acc), ROWSUM_MMA, CUTEC_ATTN_FWD_ROWSUM, its test run" ;;
        *) echo "decides: $1: delete ($what): the form's index in CUTEC_ATTN_FWD_EXP2 (all polyN slower: exp2_poly and exp2_shared in softmax.c, exp_poly, EXP2_POLY, the test's polynomial runs)" ;;
        esac
    else
        echo "decides: $1: keep opt-in ($what)"
    fi
}
{
    device_gpu_head "$(date -u +%F) $(git log --oneline -1 2>/dev/null); forms: $forms; diagnostics: $diags"
    echo "== checks against float64 on the GPU, every 4th exp2 of the unmasked tiles by the polynomial and the"
    echo "== row sums by the tensor cores"
    device_step 8 env CUTEC_ATTN_FWD_EXP2=poly4 CUTEC_ATTN_FWD_ROWSUM=mma build/cutec run attention --batch 1 --heads 8 \
        --kv-heads 2 --seqlen 1100 --headdim 128 --iters 1 | tee "$out/attnf8-check1.txt"
    device_step 8 env CUTEC_ATTN_FWD_EXP2=poly4 CUTEC_ATTN_FWD_ROWSUM=mma build/cutec run attention --batch 1 --heads 6 \
        --kv-heads 3 --seqlen 777 --headdim 128 --causal --iters 1 | tee "$out/attnf8-check2.txt"
    echo "== checks verified: $(cat "$out"/attnf8-check*.txt 2>/dev/null | grep -c 'verified against float64') of 2"
    echo "== d128 8x16x4096: the default (SDPA beside), then $forms, then the diagnostics $diags"
    bench 4k "$s4k" "" 16
    for f in $forms; do bench 4k "$s4k" "$f" 13; done
    for d in $diags; do bench 4k "$s4k" "$d" 13; done
    echo "== d128 2x16x16384: the default (SDPA off), then $forms"
    bench 16k "$s16k" "" 13
    for f in $forms; do bench 16k "$s16k" "$f" 13; done
    echo "== d64 16x32x2048: the default (SDPA off), then $forms"
    bench 64 "$s64" "" 13
    for f in $forms; do bench 64 "$s64" "$f" 13; done
    device_stamp "clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    attn_summary attnf8 "$forms"
    for d in $diags; do # (their rows end in WRONG, by design)
        echo "== diagnostic $d, d128 4k: $(awk '/^bf16 / { printf "%s%s", (n++ ? ", causal " : "not causal "),
            $(NF - ($NF == "WRONG" ? 4 : 3)) }' "$out/attnf8-4k-$d.txt" 2>/dev/null); the default $(attn_tops "$out/attnf8-4k.txt" n), causal $(attn_tops "$out/attnf8-4k.txt" c)"
    done
    for f in $forms; do decide "$f"; done
} >"$log" 2>&1
tail -n 40 "$log"
