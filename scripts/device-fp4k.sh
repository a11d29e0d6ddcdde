#!/bin/sh
# The GEMV pass of branch fp4k on a GPU machine (issue 17), about 80 s on one H200 after the
# build.  fp4k's form, opt-in: the staggered walk (`--stagger 1`, cfg.stagger; docs/gemv.md,
# "The staggered walk"): each warp walks its whole k-tiles from a k-tile of its own and wraps,
# so that the warps in flight read across A's columns instead of one 1.5 KB stripe of every
# row at once (NVFP4's register form; the bf16 ring).  The count behind it (bench/RESULTS.md,
# fp4k): at (7168,16384,1) the library's form holds 64 KB of A in flight an SM (twice what
# Little's law asks at 1 us) and issues at 45% of the schedulers' rate, yet streams 2.62 TB/s:
# a loaded round trip of 2.8 us, so the memory system queues below the copy's rate for this
# footprint, a comb of 7168 teeth 8 KB apart all at one column.
# First the staggered forms on the GPU against float64 at odd sizes (4100 rows: a partial last
# warp; K with a tail; batches), then, in one process a shape (`cutec bench gemv --forms`: one
# problem, each form's first run checked against float64, each row beside a device copy of the
# same bytes), two rounds of the library's form and the staggered one, alternating:
#   FEW  (7168,16384,1): 2/4/0 against 2/4/1 (k-tiles ahead / rows a warp / staggered)
#   MANY (4096,7168,8):  1/4/0 against 1/4/1
#   BF16 8192x8192, 16384x4096, 4096x16384 (the ring of 4): staggered 0 against 1 (--forms
#        x/x/S: for bf16 only S applies)
#   and (7168,2048,4), where the library runs a k-tile at a time: its row, then 1/4/0, 1/4/1.
# What it decides (pairs: a form and the library's in one round), per regime (FEW, MANY, and
# the bf16 ring's three shapes together): staggered at least 1 point faster in every pair (of
# every shape the regime has... for BF16: of at least one shape) and no pair of the regime
# more than 0.5 points slower -> "make default" (FEW: nvfp4.c form_few {2, 4, 0} -> {2, 4, 1};
# MANY: form_many {1, 4, 0} -> {1, 4, 1}; BF16: lib.c CUTE_GEMV_RING_STAGGER 0 -> 1); slower
# in every pair of every regime -> "delete" the staggered walk (cfg.stagger, gemv_walk_start /
# gemv_walk_kt in parts.c, the option and the tests); else "keep opt-in".  A wrong element or a
# missing row gives no pair.  Past BUDGET_S (80) a step prints "skipped".  Logs in $OUT
# (default build/device-out); the log's tail is printed.  `sh scripts/device-fp4k.sh decide
# FILE` prints the decisions of a pairs file alone (lines "REGIME SHAPE ROUND FORM PCT").
. scripts/device-common.sh
log="$out/fp4k.log"
pairs="$out/fp4k.pairs"
start=$(date +%s) budget=${BUDGET_S:-80}
decide()
{
    awk '{ pct[$1, $2, $3, $4] = $5; if (!(($1, $2) in seen)) { seen[$1, $2] = 1; shapes[$1] = shapes[$1] " " $2 }
           if (!(($1, $2, $3) in rr)) { rr[$1, $2, $3] = 1; rounds[$1, $2]++ }
           if (!($1 in regs)) { regs[$1] = 1; order[++nr] = $1 } }
        END {
            lost_all = 1; any = 0
            for (g = 1; g <= nr; g++) {
                R = order[g]; n = split(shapes[R], sh, " "); lead_shape = 0; worst = 1e9; pairs_r = 0; slow_r = 0
                all_lead = 1
                for (i = 1; i <= n; i++) {
                    S = sh[i]; pairs = 0; faster = 0; slower = 0; sum = 0
                    for (k = 1; k <= rounds[R, S]; k++) {
                        b = pct[R, S, k, 0]; v = pct[R, S, k, 1]
                        if (b == "" || v == "" || b == "-" || v == "-") continue
                        d = v - b; pairs++; sum += d
                        if (d >= 1) faster++
                        if (d < 0) slower++
                        if (d < worst) worst = d
                    }
                    printf "%s %s: %d pairs, mean %+.1f points staggered, %d at least 1 faster, %d slower\n",
                        R, S, pairs, pairs ? sum / pairs : 0, faster, slower
                    if (pairs >= 2 && faster == pairs) lead_shape = 1
                    if (!(pairs >= 2 && faster == pairs)) all_lead = 0
                    pairs_r += pairs; slow_r += slower
                }
                any += pairs_r
                if (!(pairs_r && slow_r == pairs_r)) lost_all = 0
                leads = R == "BF16" ? lead_shape : all_lead
                flip = R == "FEW" ? "nvfp4.c form_few {2, 4, 0} -> {2, 4, 1}" : R == "MANY" ? "nvfp4.c form_many {1, 4, 0} -> {1, 4, 1}" \
                     : "lib.c CUTE_GEMV_RING_STAGGER 0 -> 1"
                if (pairs_r && leads && worst >= -0.5)
                    printf "decides: %s make default staggered (%s)\n", R, flip
                else
                    printf "decides: %s keep not staggered (worst pair %+.1f)\n", R, pairs_r ? worst : 0
            }
            if (any && lost_all)
                printf "decides: delete the staggered walk (slower in every pair: cfg.stagger, parts.c gemv_walk_start/gemv_walk_kt, --stagger, the tests)\n"
            else
                printf "decides: keep the staggered walk opt-in where not made default (--stagger 1)\n"
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
# one process's --forms rows (two rounds of the library's form and the staggered one) into the
# pairs file: regime, shape, round, staggered 0|1, % of the copy ("-" for a wrong or missing row)
forms_pass()
{
    regime=$1 shape=$2 forms=$3
    shift 3
    echo "== $regime $shape: $* --forms $forms,$forms"
    rows=$(device_gemv "$@" --forms "$forms,$forms")
    echo "$rows"
    echo "$rows" | grep -E "%|WRONG|failed: no time|skipped" | awk -v R="$regime" -v S="$shape" '
        /skipped/ { exit }
        { i++; v = $NF; if ($NF == "WRONG" || /failed: no time/) v = "-"; sub("%", "", v)
          print R, S, int((i - 1) / 2) + 1, (i - 1) % 2, v }' >>"$pairs"
}
pass()
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU: skipped"
        return
    fi
    echo "== the staggered forms on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 2 --ahead 1 --stagger 1
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 2 --stagger 1
    device_gemv_run --dtype bf16 --shape 4099x4104 --batch 2 --stagger 1
    rm -f "$pairs"
    GEMV_TIMEOUT=20
    forms_pass FEW 7168x16384x1 2/4/0,2/4/1 --dtype nvfp4 --shape 7168x16384
    forms_pass MANY 4096x7168x8 1/4/0,1/4/1 --dtype nvfp4 --shape 4096x7168 --batch 8
    GEMV_TIMEOUT=12
    for s in 16384x4096 8192x8192 4096x16384; do
        forms_pass BF16 "$s" 1/4/0,1/4/1 --dtype bf16 --shape "$s"
    done
    echo "== (7168,2048,4): the library's (a k-tile at a time), then one ahead, not staggered and staggered"
    device_gemv --dtype nvfp4 --shape 7168x2048 --batch 4 | tail -n 1
    device_gemv --dtype nvfp4 --shape 7168x2048 --batch 4 --forms 1/4/0,1/4/1 | tail -n 2
    device_end
    echo "== decision (the rule in the header)"
    decide "$pairs"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 80
