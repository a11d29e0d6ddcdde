#!/bin/sh
# DeepGEMM's yield interleave of the FFMA runs (issue 15 item 5; engineer fp8y, session 38):
# CUTEC_SASS_FFMA_YIELD=1 (src/runtime/ffma_yield.c, opt-in) after CUTEC_SASS_FFMA's default
# rewrite (reuse) on every sm_90 cubin NVRTC makes: in the first 9/16 of each run of 8+ FFMAs
# the FFMA that starts a scale register's reuse chain yields instead (50 of the block-scaled
# GEMM's FFMAs with this toolkit).  Beside the default (the library's tile for each shape):
#   1. how many FFMAs the pass changes, by kernel (`cutec compile ... --emit usage`): a guard
#      whose cubin it leaves alone (0) is not timed (the same bytes);
#   2. on the GPU against float64 first: `cutec run gemm` of block scales at 1021x1016x1024
#      (C row-major), every element, without and with the pass (and the pass on ptxas's own
#      bits, CUTEC_SASS_FFMA=keep, DeepGEMM's setting: "dg"); the causal attention forward
#      where the pass changes it; a form not checked right decides nothing;
#   3. block scales at 4096x7168x16384 and 8192^3, three rounds of the default then the pass
#      (each a process with cuBLASLt unscaled beside: rows as % of that process's cuBLAS);
#   4. guards: the per-tensor fp8 at 8192^3, the bf16 Hopper GEMM at 4096^3, the attention
#      forward d128 8x16x4096 (causal and not), without and with, where the pass changes
#      their cubins;
#   5. dg at both block-scaled shapes, once (decides nothing).
# Decides (the brief's rule), from the mean over three rounds of the pass / the default in %
# of cuBLAS at each block-scaled shape:
#   at least 1.02 at both and no guard under 0.99 -> the pass the default for sm_90's
#      kernels (the flip: yield_by_default in src/runtime/ffma_yield.c);
#   at most 0.99 at both -> delete the pass (figures into bench/RESULTS.md);
#   else keep it opt-in.
# About 85 s on one H200 after `make all tests`, no step past BUDGET_S (85 s):
#   sh scripts/device-fp8y.sh          log: $OUT/fp8y.log (default build/device-out)
. scripts/device-common.sh
start=$(date +%s) budget=${BUDGET_S:-85} log="$out/fp8y.log"
gemm="--dtype e4m3 --out-dtype bf16 --variant hopper --layout tn --arch sm_90a"
attn="--batch 8 --heads 16 --seqlen 4096 --headdim 128"
# changed 'ARGS': the FFMAs the pass changes in `cutec compile ARGS` (its --emit usage line)
changed()
{
    # shellcheck disable=SC2086
    CUTEC_SASS_FFMA_YIELD=1 CUTEC_NO_CACHE=1 timeout 20 build/cutec compile $1 --emit usage 2>&1 |
        sed -n 's/.*CUTEC_SASS_FFMA_YIELD=1: \([0-9]*\) FFMAs yield.*/\1/p' | tail -n 1
}
# check NAME 'VAR=VALUE ...' CMD...: CMD's verdict (every element against float64 on the
# GPU); NAME counts as checked right once a check of it is and none fails
right='' wrong=''
check()
{
    cn=$1 cv=$2
    shift 2
    device_late "check $cn" && return
    # shellcheck disable=SC2086,SC2163
    r=$(if [ -n "$cv" ]; then export $cv; fi; "$@" 2>&1 | tail -n 2 | tr '\n' ' ')
    echo "$cn ($cv): $r"
    case $r in *WRONG* | *FAIL*) wrong="$wrong $cn " ;; *verified*) right="$right $cn " ;; *) wrong="$wrong $cn " ;; esac
}
ok() { case $wrong in *" $1 "*) return 1 ;; esac; case $right in *" $1 "*) return 0 ;; esac; return 1; }
# rows NAME 'VAR=VALUE ...' CMD...: CMD's table (under those variables) into $out/fp8y-NAME.txt
rows()
{
    rn=$1 rv=$2
    shift 2
    device_late "bench $rn" && : >"$out/fp8y-$rn.txt" && return
    echo "== $(el) s: $rn (${rv:-the default}): $*"
    # shellcheck disable=SC2086,SC2163
    (if [ -n "$rv" ]; then export $rv; fi; "$@") >"$out/fp8y-$rn.txt" 2>&1
    grep -v "^#" "$out/fp8y-$rn.txt" | grep -E "^[0-9]|^(bf16|f16) |rror|WRONG" | head -n 8
}
# fp8 SCALE SIZES: the fp8 bench (lib's tile), no torch; blk NAME VARS: block scales at both shapes
fp8() { (export CUTEC_TORCH_SCALED_MM=/dev/null; fp8_bench 22 --scale "$1" --sizes "$2"); }
blk() { rows "$1" "$2" fp8 block 4096x7168x16384,8192; }
# pct NAME SIZE PAT: % of cuBLAS of the checked row PAT at SIZE in fp8y-NAME.txt
pct() { gemm_pct "$out/fp8y-$1.txt" "$2" "$3"; }
# mean3 SIZE: "ratio figures" of the pass / the default over the three rounds at SIZE
mean3()
{
    b="^hopper.*[+]blk\$"
    echo "$(pct def1 "$1" "$b") $(pct y1 "$1" "$b") $(pct def2 "$1" "$b") $(pct y2 "$1" "$b") $(pct def3 "$1" "$b") \
        $(pct y3 "$1" "$b")" | awk -v s="$1" '{ if (NF < 6) { printf "0 %s:-\n", s; exit }
            printf "%.4f %s:%s/%s/%s->%s/%s/%s\n", ($2 / $1 + $4 / $3 + $6 / $5) / 3, s, $1, $3, $5, $2, $4, $6 }'
}
{
    gemm_gpu_head
    timeout 20 make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== $(el) s: 1. FFMAs the pass changes"
    nb=$(changed "gemm $gemm --scale block --m 4096 --n 7168 --k 16384")
    nb8=$(changed "gemm $gemm --scale block --m 8192 --n 8192 --k 8192")
    nt=$(changed "gemm $gemm --scale tensor --m 8192 --n 8192 --k 8192")
    nh=$(changed "gemm --dtype bf16 --layout tn --variant hopper --arch sm_90a --m 4096 --n 4096 --k 4096")
    na=$(changed "attention --headdim 128 --seqlen 4096 --arch sm_90a")
    nc=$(changed "attention --headdim 128 --seqlen 4096 --causal --arch sm_90a")
    echo "block 4096x7168x16384 ${nb:-?}, block 8192 ${nb8:-?}, per-tensor 8192 ${nt:-?}, bf16 4096 ${nh:-?}," \
        "attention d128 ${na:-?} (causal ${nc:-?})"
    echo "== $(el) s: 2. against float64"
    run="fp8_block_run"
    check def "" $run
    check y CUTEC_SASS_FFMA_YIELD=1 $run
    check dg "CUTEC_SASS_FFMA=keep CUTEC_SASS_FFMA_YIELD=1" $run
    achk="timeout 20 build/cutec run attention --batch 2 --heads 4 --seqlen 1024 --headdim 128 --causal"
    # shellcheck disable=SC2086
    if [ "${nc:-0}" != 0 ] || [ "${na:-0}" != 0 ]; then check attn CUTEC_SASS_FFMA_YIELD=1 $achk; fi
    echo "== 3. block scales at 4096x7168x16384,8192 (the library's tile for each)"
    for r in 1 2 3; do
        blk def$r ""
        blk y$r CUTEC_SASS_FFMA_YIELD=1
    done
    echo "== 4. guards (where the pass changes the cubin)"
    guards=
    if [ "${nt:-1}" != 0 ]; then
        for f in "def" "y"; do
            v=; [ $f = y ] && v=CUTEC_SASS_FFMA_YIELD=1
            rows t$f "$v" fp8 tensor 8192
        done
        guards="$guards tensor:$(ratio "$(pct ty 8192 "[+]scl\$")" "$(pct tdef 8192 "[+]scl\$")")"
    else echo "per-tensor fp8: the same cubin, not timed"; fi
    if [ "${nh:-1}" != 0 ]; then
        hb="timeout 20 build/cutec bench gemm --dtype bf16 --layout tn --variants hopper --sizes 4096 --iters 10"
        # shellcheck disable=SC2086
        rows hdef "" $hb
        # shellcheck disable=SC2086
        rows hy CUTEC_SASS_FFMA_YIELD=1 $hb
        guards="$guards bf16:$(ratio "$(pct hy 4096 "^hopper")" "$(pct hdef 4096 "^hopper")")"
    else echo "bf16 Hopper GEMM: the same cubin, not timed"; fi
    if [ "${nc:-1}" != 0 ] || [ "${na:-1}" != 0 ]; then
        ab="timeout 25 env CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py build/cutec bench attention $attn --iters 10"
        # shellcheck disable=SC2086
        rows adef "" $ab
        # shellcheck disable=SC2086
        rows ay CUTEC_SASS_FFMA_YIELD=1 $ab
        ok attn || guards="$guards attention:wrong"
        guards="$guards attn:$(ratio "$(attn_tops "$out/fp8y-ay.txt" n)" "$(attn_tops "$out/fp8y-adef.txt" n)")"
        guards="$guards attn-causal:$(ratio "$(attn_tops "$out/fp8y-ay.txt" c)" "$(attn_tops "$out/fp8y-adef.txt" c)")"
    else echo "attention forward: the same cubin, not timed"; fi
    echo "== 5. the pass on ptxas's own bits (DeepGEMM's setting), once"
    blk dg "CUTEC_SASS_FFMA=keep CUTEC_SASS_FFMA_YIELD=1"
    echo "== $(el) s: the rule"
    m4=$(mean3 4096) m8=$(mean3 8192)
    dg4=$(ratio "$(pct dg 4096 "^hopper.*[+]blk\$")" "$(pct def1 4096 "^hopper.*[+]blk\$")")
    echo "pass / default: ${m4#* } (x${m4%% *}), ${m8#* } (x${m8%% *}); guards:${guards:- none timed}"
    echo "${m4%% *} ${m8%% *}$guards" | awk -v okf="$(ok def && ok y && echo 1)" -v fig="${m4#* } ${m8#* }" '{
        what = "DeepGEMM'"'"'s yield interleave (CUTEC_SASS_FFMA_YIELD=1)"; lose = 0
        for (i = 3; i <= NF; i++) { split($i, g, ":"); if (g[2] == "" || g[2] == "wrong" || g[2] < 0.99) lose = 1 }
        if (okf != 1 || $1 == 0 || $2 == 0) printf "decides: %s not measured or not checked right (%s): keep it opt-in\n", what, fig
        else if ($1 >= 1.02 && $2 >= 1.02 && !lose) printf "decides: %s leads (x%.3f / x%.3f; %s): make it the default (yield_by_default = 1, src/runtime/ffma_yield.c)\n", what, $1, $2, fig
        else if ($1 <= 0.99 && $2 <= 0.99) printf "decides: %s behind at both shapes (x%.3f / x%.3f; %s): delete it\n", what, $1, $2, fig
        else printf "decides: %s (x%.3f / x%.3f; %s%s): keep it opt-in\n", what, $1, $2, fig, lose ? "; a guard lost" : "" }'
    echo "decides: nothing from dg (the pass on ptxas's own bits, DeepGEMM's setting; one round: x${dg4:-?} of def1 at 4096)"
    fp8_clocks
} >"$log" 2>&1
fp8_show "$log"
