#!/bin/sh
# The NVFP4 GEMV pass of branch fp4h on a GPU machine (issue 17), about 40-60 s on one H200
# after the build.  The early mid pass (H200, 2026-11-27 18:50, % of a device copy in the same
# process, twice) measured every form of fp4h's first round slower than the library's:
# blocks of one warp (7168,16384,1) 68.3-70.2 against 73.0, (4096,7168,8) 70.7 against 77.8,
# bf16 83.5-91.3 against 90.8-96.1; the k-tile split among warps 63.1; the L2 prefetch past
# the loads 68.2-68.9 / 68.5; three ahead 63.6.  Those are deleted.  One came close: 8 rows a
# warp in blocks of ONE warp, 76.8 against 77.8 at (4096,7168,8), where the same blocks of
# one warp with 4 rows lost 7.1 points: so 8 rows a warp (x's decode and the loop for twice
# the rows, ~11% fewer instructions a byte of A, 128 registers, 4 KB of A a warp in flight)
# in blocks of 4 and 2 warps is what this pass measures (`--warp-rows 8 --warps W`).
# A form is A/W/R: k-tiles ahead / warps a block / rows a warp.  The library's: 2/4/4 at
# (7168,16384,1) (FEW: blocks of 16 rows 4 an SM or fewer), 1/4/4 at (4096,7168,8) (MANY).
# At FEW, 1/4/8 is 224 blocks of 32 rows (1 or 2 an SM), 1/2/8 448 blocks of 16 rows (3 or 4
# an SM, as the library's); 2/2/4 and 1/2/4 measure blocks of 2 warps alone.  First the new forms on the GPU against float64 at odd sizes, then at each
# shape one process runs its forms twice in rounds (`cutec bench gemv --forms`: one problem,
# each form's first run checked against float64, each row beside a device copy of the same
# bytes; ptxas sm_90a: no spills, 128 registers with 8 rows).
# What this pass decides (pairs = a form and the library's in one round), per regime: a form
# at least 1 point faster in both rounds is faster; the fastest such (mean) -> "make default"
# (nvfp4.c: form_few or form_many {A, W, R}), none -> "keep".  Per knob (rows 8; warps < 4
# with 4 rows): slower in every pair at both shapes -> "delete" it, else "keep opt-in".  A
# form with a wrong element gets one pair, never two: never faster.  Past BUDGET_S (55) a
# step prints "skipped".  Logs in $OUT (default build/device-out); the log's tail is printed.
# `sh scripts/device-fp4h.sh decide FILE` prints the decisions of a pairs file alone (lines
# "REGIME ROUND FORM PCT", the library's form first in each round).
. scripts/device-common.sh
log="$out/fp4h.log"
start=$(date +%s) budget=${BUDGET_S:-55}
FEW_FORMS="2/4/4,1/4/8,1/2/8,2/2/4,1/4/4"
MANY_FORMS="1/4/4,1/4/8,1/2/8,1/2/4"
decide()
{
    awk '{ pct[$1, $2, $3] = $4; if (!(($1, $3) in seen)) { seen[$1, $3] = 1; forms[$1] = forms[$1] " " $3 }
           if (!(($1, $2) in r)) { r[$1, $2] = 1; rounds[$1]++ }
           if (!($1 in base)) { base[$1] = $3; regs[++nr] = $1 } }
        # the pairs of form f against the first form of regime R: pairs, faster, slower, mean, worst
        function against(R, f,    k, b, v, d) {
            pairs = 0; faster = 0; slower = 0; sum = 0; worst = 1e9
            for (k = 1; k <= rounds[R]; k++) {
                b = pct[R, k, base[R]]; v = pct[R, k, f]
                if (b == "" || v == "" || b == "-" || v == "-") continue
                pairs++; d = v - b; sum += d
                if (d >= 1) faster++
                if (d < 0) slower++
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
                        knob = q[3] == 8 ? "rows" : q[2] < 4 ? "warps" : "ahead"
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
                    if (pairs >= 2 && faster == pairs && mean > bestm) { best = fs[i]; bestm = mean }
                }
                split(base[R], o, "/")
                lr = tolower(R)
                if (best != "") {
                    split(best, w, "/")
                    printf "decides: %s make default %s (nvfp4.c: form_%s {%s, %s, %s} -> {%s, %s, %s})\n",
                        R, best, lr, o[1], o[2], o[3], w[1], w[2], w[3]
                } else
                    printf "decides: %s keep %s (form_%s {%s, %s, %s} in nvfp4.c)\n", R, base[R], lr, o[1], o[2], o[3]
            }
            split("warps rows", kn, " ")
            split("warps warp_rows", cf, " ")
            split("warps warp-rows", op, " ")
            for (g = 1; g <= 2; g++) {
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
# ("-" for a wrong or missing row); the forms list is run twice, at each shape of REGIMES
# (their names, in the bench's order)
forms_pass()
{
    regimes=$1 forms=$2
    shift 2
    echo "== $regimes: $* --forms $forms (twice)"
    rows=$(device_gemv "$@" --forms "$forms,$forms")
    echo "$rows"
    echo "$rows" | grep -E "%|WRONG|failed: no time|skipped" | awk -v R="$regimes" -v F="$forms,$forms" '
        BEGIN { n = split(F, f, ","); half = n / 2; split(R, rs, " ") }
        /skipped/ { exit }
        { i = (i % n) + 1; if (i == 1) s++; v = $NF; if ($NF == "WRONG" || /failed: no time/) v = "-"; sub("%", "", v)
          if (s in rs) print rs[s], (i <= half ? 1 : 2), f[i], v }' >>"$out/fp4h.pairs"
}
pass()
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU: skipped"
        return
    fi
    echo "== the new forms on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 2 --ahead 1 --warp-rows 8
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 1 --warps 2 --warp-rows 8
    rm -f "$out/fp4h.pairs"
    # (each under a time limit: a process stopped keeps the rows it printed; the pairs
    # without a second round decide nothing)
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
