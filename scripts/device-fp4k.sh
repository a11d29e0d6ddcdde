#!/bin/sh
# The NVFP4 GEMV pass of branch fp4k on a GPU machine (issue 17), about 70 s on one H200 after
# the build.  fp4k's forms, opt-in (docs/gemv.md, "Late loads and row tiles"; bench/RESULTS.md,
# fp4k):
#   - late loads (`--late-loads 1`, cfg.late_loads): ptxas issues the register walk's loads
#     after the products whatever the source order (SASS: one ahead's five LDG.128 sit at the
#     loop's end, read at the next step's start), so one ahead waits a whole round trip every
#     k-tile; late, a k-tile's successor's successor loads after its products into its freed
#     registers, and has the next k-tile's products to land in (one ahead: 96 registers, 5
#     blocks an SM);
#   - a block's row tiles in one walk (`--row-tiles T`, with late loads): a warp's first k-tile
#     waits a round trip once a block, not once a tile.
# (The early mid pass, 2026-11-27 21:41, measured the staggered walk and the bf16 ring's 4 rows
# a warp slower in all 12 and 6 pairs: deleted.  The second, 22:04, measured these two forms
# 8-12 points slower in all 14 pairs, but with x loaded as a k-tile's products start, not with
# its registers: from L2 (A's stream evicts it from L1), a round trip each k-tile.  x travels
# with the registers again; this pass times them once more, and deletes them if slower.)
# First the new forms on the GPU against float64 at odd sizes, then, in one process a shape
# (`cutec bench gemv --forms A/R/T/L`: k-tiles ahead / rows a warp / row tiles / late loads,
# 0/0 the library's own; one problem, each form's first run checked against float64, each row
# beside a device copy of the same bytes), the forms in a row, twice (two rounds, alternating),
# the library's first:
#   FEW   (7168,16384,1): 2/4 against 2/4/1/1 (two ahead late), 1/4/1/1 (one ahead late)
#   MANY  (4096,7168,8):  1/4 against 1/4/1/1, 1/4/4 (row tiles 4: 512 blocks), 1/4/2
#   SMALL (7168,2048,4):  0/0 (a k-tile at a time) against 1/4/1/1, 1/4/4 (448 blocks)
# What it decides (a pair: a form and the library's in one round), per regime and form: at
# least 1 point faster in every pair and no pair of the regime more than 0.5 slower -> "make
# default" (the best such form: FEW nvfp4.c form_few {2, 4, 1, 0} -> {A, R, T, L}; MANY
# form_many {1, 4, 1, 0} -> {A, R, T, L}; SMALL: not a one-line flip, nvfp4.c pipeline_pays);
# else "keep".  Per knob (row tiles, late loads): slower in every pair of the forms that turn
# it on -> "delete" it, else "keep opt-in".  A wrong element or a missing row gives no pair.
# Past BUDGET_S (90) a step prints "skipped".  Logs in $OUT (default build/device-out); the
# log's tail is printed.  `sh scripts/device-fp4k.sh decide FILE` prints the decisions of a
# pairs file alone (lines "REGIME SHAPE ROUND FORM PCT", the library's form first).
. scripts/device-common.sh
log="$out/fp4k.log"
pairs="$out/fp4k.pairs"
start=$(date +%s) budget=${BUDGET_S:-90}
decide()
{
    awk '{ pct[$1, $2, $3, $4] = $5
           if (!(($1, $2) in seen)) { seen[$1, $2] = 1; shapes[$1] = shapes[$1] " " $2 }
           if (!(($1, $4) in fseen)) { fseen[$1, $4] = 1; forms[$1] = forms[$1] " " $4 }
           if (!(($1, $2, $3) in rr)) { rr[$1, $2, $3] = 1; rounds[$1, $2]++ }
           if (!($1 in base)) { base[$1] = $4; order[++nr] = $1 } }
        function flip(R, f,    q, n) {
            n = split(f, q, "/")
            if (n < 3) q[3] = 1
            if (n < 4) q[4] = 0
            if (R == "FEW" || R == "MANY")
                return "nvfp4.c form_" tolower(R) " {" (R == "FEW" ? 2 : 1) ", 4, 1, 0} -> {" q[1] ", " q[2] ", " q[3] ", " q[4] "}"
            return "not a one-line flip: nvfp4.c pipeline_pays for K of two k-tiles, then form_many"
        }
        # the knobs a form turns on: tiles, late
        function knobs(R, f,    q, n, r) {
            n = split(f, q, "/"); r = ""
            if (n >= 3 && q[3] > 1) r = r " tiles"
            if (n >= 4 && q[4] == 1) r = r " late"
            return r
        }
        END {
            for (g = 1; g <= nr; g++) {
                R = order[g]; nf = split(forms[R], fs, " "); ns = split(shapes[R], sh, " "); best = ""; bestm = -1e9
                for (j = 1; j <= nf; j++) {
                    f = fs[j]
                    if (f == base[R]) continue
                    nk = split(knobs(R, f), ks, " ")
                    lead_all = 1; worst = 1e9; pr = 0; sr = 0; tot = 0
                    for (i = 1; i <= ns; i++) {
                        S = sh[i]; pairs = 0; faster = 0; slower = 0; sum = 0
                        for (k = 1; k <= rounds[R, S]; k++) {
                            b = pct[R, S, k, base[R]]; v = pct[R, S, k, f]
                            if (b == "" || v == "" || b == "-" || v == "-") continue
                            d = v - b; pairs++; sum += d
                            if (d >= 1) faster++
                            if (d < 0) slower++
                            if (d < worst) worst = d
                        }
                        if (!pairs) continue
                        printf "%s %s %s: %d pairs, mean %+.1f points against %s, %d at least 1 faster, %d slower\n",
                            R, S, f, pairs, sum / pairs, base[R], faster, slower
                        if (!(pairs >= 2 && faster == pairs)) lead_all = 0
                        pr += pairs; sr += slower; tot += sum
                    }
                    for (u = 1; u <= nk; u++) { tried[ks[u]] += pr; lost[ks[u]] += sr }
                    leads = lead_all
                    if (pr && leads && worst >= -0.5 && tot / pr > bestm) { best = f; bestm = tot / pr }
                }
                if (best != "")
                    printf "decides: %s make default %s (%s)\n", R, best, flip(R, best)
                else
                    printf "decides: %s keep %s\n", R, base[R]
            }
            split("tiles late", kn, " ")
            what["tiles"] = "NVFP4'"'"'s row tiles a block (cfg.row_tiles, blockscaled.c words_row_tiles, --row-tiles)"
            what["late"] = "NVFP4'"'"'s late loads (cfg.late_loads, --late-loads)"
            for (u = 1; u <= 2; u++) {
                x = kn[u]
                if (!tried[x]) continue
                if (lost[x] == tried[x])
                    printf "decides: delete %s: slower in all %d pairs\n", what[x], tried[x]
                else
                    printf "decides: keep %s opt-in where not made default (%d of %d pairs slower)\n", what[x], lost[x], tried[x]
            }
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
# one process's --forms rows (the forms FORMS, then again: two rounds) into the pairs file:
# regime, shape, round, form, % of the copy ("-" for a wrong or missing row)
forms_pass()
{
    regime=$1 shape=$2 forms=$3
    shift 3
    echo "== $regime $shape: $* --forms $forms,$forms"
    rows=$(device_gemv "$@" --forms "$forms,$forms")
    echo "$rows"
    echo "$rows" | grep -E "%|WRONG|failed: no time|skipped" | awk -v R="$regime" -v S="$shape" -v F="$forms" '
        BEGIN { n = split(F, f, ",") }
        /skipped/ { exit }
        { i++; v = $NF; if ($NF == "WRONG" || /failed: no time/) v = "-"; sub("%", "", v)
          print R, S, int((i - 1) / n) + 1, f[(i - 1) % n + 1], v }' >>"$pairs"
}
pass()
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU: skipped"
        return
    fi
    echo "== the new forms on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 2 --ahead 1 --late-loads 1
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 2 --late-loads 1
    device_gemv_run --dtype nvfp4 --shape 4096x5120 --batch 3 --ahead 1 --row-tiles 4
    rm -f "$pairs"
    GEMV_TIMEOUT=25
    forms_pass FEW 7168x16384x1 2/4,2/4/1/1,1/4/1/1 --dtype nvfp4 --shape 7168x16384
    forms_pass MANY 4096x7168x8 1/4,1/4/1/1,1/4/4,1/4/2 --dtype nvfp4 --shape 4096x7168 --batch 8
    forms_pass SMALL 7168x2048x4 0/0,1/4/1/1,1/4/4 --dtype nvfp4 --shape 7168x2048 --batch 4
    device_end
    echo "== decision (the rule in the header)"
    decide "$pairs"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 80
