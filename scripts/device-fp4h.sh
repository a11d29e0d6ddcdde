#!/bin/sh
# The NVFP4 GEMV pass of branch fp4h on a GPU machine (issue 17), about 40 s on one H200 after
# the build.  fp4h's form of the register walk, opt-in: `--warp-rows 8` (8 rows a warp: x's
# decode and the loop for twice the rows, ~11% fewer instructions a byte of A, 128 registers,
# one ahead only); docs/gemv.md, "The block".  (Its other knob, `--warps W`, blocks of 1 or 2
# warps, was slower in all 3 pairs of session 34's final pass and deleted.)
# The mid passes (H200, 2026-11-27, % of a device copy in the same process, each form twice):
#   18:50: blocks of one warp slower everywhere ((7168,16384,1) 68.3-70.2 against 73.0,
#     (4096,7168,8) 70.6-70.7 against 77.8, bf16 83.5-91.3 against 90.8-96.1), the k-tile split
#     among warps 63.0, an L2 prefetch past the loads 68.2-68.9, three ahead 63.6: deleted;
#   19:25: 8 rows in blocks of 2 warps (1/2/8) 78.7 / 78.7 at (4096,7168,8) against 77.8 /
#     77.5 (+0.9, +1.2); in blocks of 4 74.1 / 73.9; at (7168,16384,1) every form slower (8
#     rows 64.1-68.0, blocks of 2 warps two ahead 71.4 / 72.8 against 73.4 / 72.7).
# So this pass measures, three rounds in one process a shape (`cutec bench gemv --forms`: one
# problem, each form's first run checked against float64, each row beside a device copy of
# the same bytes): at (4096,7168,8) (MANY: blocks of 16 rows 6 an SM or more) 1/8 against the
# library's 1/4; at (7168,16384,1) (FEW: 4 an SM or fewer) 1/8 against 2/4.  A form is A/R:
# k-tiles ahead / rows a warp.  First the 8-row form on the GPU against float64 at odd sizes
# (4100 rows: a partial last warp; K with a tail; batches).
# What it decides (pairs = a form and the library's in one round), per regime: a form with
# three pairs, a mean at least 1 point faster and no pair under +0.5 is faster; the fastest
# such (mean) -> "make default" (nvfp4.c: form_few or form_many {A, R}; the library's 8
# rows apply before sm_100 only), none -> "keep".  Per knob (rows 8):
# slower in every pair -> "delete" it, else "keep opt-in".  A form with a wrong element gets
# one pair, never three: never faster.  Past BUDGET_S (55) a step prints "skipped".  Logs in
# $OUT (default build/device-out); the log's tail is printed.  `sh scripts/device-fp4h.sh
# decide FILE` prints the decisions of a pairs file alone (lines "REGIME ROUND FORM PCT", the
# library's form first in each round).
. scripts/device-common.sh
log="$out/fp4h.log"
start=$(date +%s) budget=${BUDGET_S:-55}
FEW_FORMS="2/4,1/8"
MANY_FORMS="1/4,1/8"
ROUNDS=3
decide()
{
    awk '{ pct[$1, $2, $3] = $4; if (!(($1, $3) in seen)) { seen[$1, $3] = 1; forms[$1] = forms[$1] " " $3 }
           if (!(($1, $2) in r)) { r[$1, $2] = 1; rounds[$1]++ }
           if (!($1 in base)) { base[$1] = $3; regs[++nr] = $1 } }
        # the pairs of form f against the first form of regime R: pairs, faster, slower, mean, worst
        function against(R, f,    k, b, v, d) {
            pairs = 0; faster = 0; slower = 0; sum = 0; worst = 1e9; low = 0
            for (k = 1; k <= rounds[R]; k++) {
                b = pct[R, k, base[R]]; v = pct[R, k, f]
                if (b == "" || v == "" || b == "-" || v == "-") continue
                pairs++; d = v - b; sum += d
                if (d >= 1) faster++
                if (d < 0) slower++
                if (d < 0.5) low++
                if (d < worst) worst = d
            }
            mean = pairs ? sum / pairs : 0
        }
        END {
            for (g = 1; g <= nr; g++) {
                R = regs[g]; n = split(forms[R], fs, " ")
                for (i = 1; i <= n; i++) {
                    f = fs[i]
                    if (f == base[R]) continue
                    against(R, f)
                    printf "%s %s: %d pairs, mean %+.1f points against %s, %d at least 1 faster, %d slower\n",
                        R, f, pairs, mean, base[R], faster, slower
                    if (R == "FEW" || R == "MANY") {
                        split(f, q, "/")
                        knob = q[2] == 8 ? "rows" : "ahead"
                        tried[knob] += pairs; lost[knob] += slower
                    }
                }
            }
            split("FEW MANY", nv, " ")
            for (g = 1; g <= 2; g++) {
                R = nv[g]; best = ""; bestm = -1e9
                if (!(R in base)) { printf "decides: %s keep (no figures)\n", R; continue }
                n = split(forms[R], fs, " ")
                for (i = 1; i <= n; i++) {
                    if (fs[i] == base[R]) continue
                    against(R, fs[i])
                    if (pairs >= 3 && mean >= 1 && !low && mean > bestm) { best = fs[i]; bestm = mean }
                }
                split(base[R], o, "/")
                lr = tolower(R)
                if (best != "") {
                    split(best, w, "/")
                    printf "decides: %s make default %s (nvfp4.c: form_%s {%s, %s} -> {%s, %s})\n",
                        R, best, lr, o[1], o[2], w[1], w[2]
                } else
                    printf "decides: %s keep %s (form_%s {%s, %s} in nvfp4.c)\n", R, base[R], lr, o[1], o[2]
            }
            split("rows", kn, " ")
            split("warp_rows", cf, " ")
            split("warp-rows", op, " ")
            for (g = 1; g <= 1; g++) {
                knob = kn[g]
                if (!tried[knob]) continue
                if (lost[knob] == tried[knob])
                    printf "decides: delete NVFP4 %s (slower in all %d pairs: cfg.%s, its option and test)\n", knob,
                        tried[knob], cf[g]
                else
                    printf "decides: keep NVFP4 %s opt-in (--%s; %d of %d pairs slower)\n", knob, op[g], lost[knob], tried[knob]
            }
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
# the rows of one process's --forms run into the pairs file: regime, round, form, % of copy
# ("-" for a wrong or missing row); the forms list is run $ROUNDS times, at each shape of
# REGIMES (their names, in the bench's order)
forms_pass()
{
    regimes=$1 forms=$2 all=$2
    shift 2
    k=1
    while [ $k -lt "$ROUNDS" ]; do all="$all,$forms" k=$((k + 1)); done
    echo "== $regimes: $* --forms $forms ($ROUNDS rounds)"
    rows=$(device_gemv "$@" --forms "$all")
    echo "$rows"
    echo "$rows" | grep -E "%|WRONG|failed: no time|skipped" | awk -v R="$regimes" -v F="$all" -v per="$(echo "$forms" | awk -F, '{print NF}')" '
        BEGIN { n = split(F, f, ","); split(R, rs, " ") }
        /skipped/ { exit }
        { i = (i % n) + 1; if (i == 1) s++; v = $NF; if ($NF == "WRONG" || /failed: no time/) v = "-"; sub("%", "", v)
          if (s in rs) print rs[s], int((i - 1) / per) + 1, f[i], v }' >>"$out/fp4h.pairs"
}
pass()
{
    device_begin
    device_gpu || return
    echo "== the new forms on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 2 --ahead 1 --warp-rows 8
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 1 --warp-rows 8
    rm -f "$out/fp4h.pairs"
    # (each under a time limit: a process stopped keeps the rows it printed; a form with fewer
    # than three rounds decides nothing)
    GEMV_TIMEOUT=28
    forms_pass FEW "$FEW_FORMS" --dtype nvfp4 --shape 7168x16384
    GEMV_TIMEOUT=24
    forms_pass MANY "$MANY_FORMS" --dtype nvfp4 --shape 4096x7168 --batch 8
    device_end
    echo "== decision (the rule in the header)"
    decide "$out/fp4h.pairs"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 100
