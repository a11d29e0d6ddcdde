#!/bin/sh
# The GEMV pass of branch fp4k on a GPU machine (issue 17), about 80 s on one H200 after the
# build.  fp4k's forms, opt-in (docs/gemv.md, "The staggered walk"; bench/RESULTS.md, fp4k):
#   - the staggered walk (`--stagger 1`, cfg.stagger): each warp walks its whole k-tiles from a
#     k-tile of its own and wraps, so that the warps in flight read across A's columns instead
#     of one 1.5 KB stripe of every row at once (NVFP4's register form; the bf16 ring).  The
#     count: at (7168,16384,1) the library's form holds 64 KB of A in flight an SM (twice what
#     Little's law asks at 1 us) and issues at 45-53% of the schedulers' rate, yet streams 2.62
#     TB/s: a loaded round trip of 2.8 us for this footprint, a comb 8 KB apart at one column;
#   - the ring's 4 rows a warp for bf16 (`--warp-rows 4`): half the walks, each twice the
#     bytes, against the ring's fixed cost of about a round trip a walk (8 k-tiles a warp at
#     16384x4096 ran 90.8%, 32 at 4096x16384 96.1%).
# First the new forms on the GPU against float64 at odd sizes (4100 rows: a partial last warp;
# K with a tail; batches), then, in one process a shape (`cutec bench gemv --forms A/R/S`: k-tiles
# ahead / rows a warp (0: the library's) / staggered; one problem, each form's first run checked
# against float64, each row beside a device copy of the same bytes), the forms in a row, twice
# (two rounds, alternating):
#   FEW  (7168,16384,1): 2/4/0 (the library's) against 2/4/1 and 1/4/1 (one ahead staggered:
#        80 registers, no spills, where two ahead staggered spills 68 bytes)
#   MANY (4096,7168,8):  1/4/0 (the library's) against 1/4/1
#   BF16 16384x4096, 8192x8192, 4096x16384 (the ring of 4): 1/0/0 (the library's) against
#        1/0/1 (staggered) and 1/4/0 (4 rows a warp); (the bf16 GEMV takes only R and S)
#   and (7168,2048,4), where the library runs a k-tile at a time: its row, then 1/4/0, 1/4/1.
# What it decides (a pair: a form and the library's in one round), per regime and form: at
# least 1 point faster in every pair (FEW, MANY: of the one shape; BF16: of one shape at least,
# the three shapes sharing one flip) and no pair of the regime more than 0.5 slower -> "make
# default" (the best such form of the regime: FEW nvfp4.c form_few {2, 4, 0} -> {A, R, S};
# MANY form_many {1, 4, 0} -> {1, 4, 1}; BF16 lib.c CUTE_GEMV_RING_STAGGER 0 -> 1, or
# CUTE_GEMV_RING_ROWS 0 -> 4); else "keep".  Per knob (stagger; the ring's 4 rows): slower in
# every pair -> "delete" it, else "keep opt-in".  A wrong element or a missing row gives no
# pair.  Past BUDGET_S (80) a step prints "skipped".  Logs in $OUT (default build/device-out);
# the log's tail is printed.  `sh scripts/device-fp4k.sh decide FILE` prints the decisions of a
# pairs file alone (lines "REGIME SHAPE ROUND FORM PCT", the library's form first).
. scripts/device-common.sh
log="$out/fp4k.log"
pairs="$out/fp4k.pairs"
start=$(date +%s) budget=${BUDGET_S:-80}
decide()
{
    awk '{ pct[$1, $2, $3, $4] = $5
           if (!(($1, $2) in seen)) { seen[$1, $2] = 1; shapes[$1] = shapes[$1] " " $2 }
           if (!(($1, $4) in fseen)) { fseen[$1, $4] = 1; forms[$1] = forms[$1] " " $4 }
           if (!(($1, $2, $3) in rr)) { rr[$1, $2, $3] = 1; rounds[$1, $2]++ }
           if (!($1 in base)) { base[$1] = $4; order[++nr] = $1 } }
        function flip(R, f,    q) {
            split(f, q, "/")
            if (R == "FEW") return "nvfp4.c form_few {2, 4, 0} -> {" q[1] ", " q[2] ", " q[3] "}"
            if (R == "MANY") return "nvfp4.c form_many {1, 4, 0} -> {" q[1] ", " q[2] ", " q[3] "}"
            if (f == "1/0/1") return "lib.c CUTE_GEMV_RING_STAGGER 0 -> 1"
            return "lib.c CUTE_GEMV_RING_ROWS 0 -> 4"
        }
        END {
            for (g = 1; g <= nr; g++) {
                R = order[g]; nf = split(forms[R], fs, " "); ns = split(shapes[R], sh, " "); best = ""; bestm = -1e9
                for (j = 1; j <= nf; j++) {
                    f = fs[j]
                    if (f == base[R]) continue
                    knob = f == "1/4/0" ? "rows" : "stagger"
                    lead_one = 0; lead_all = 1; worst = 1e9; pr = 0; sr = 0; tot = 0
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
                        if (pairs >= 2 && faster == pairs) lead_one = 1; else lead_all = 0
                        pr += pairs; sr += slower; tot += sum
                    }
                    tried[knob] += pr; lost[knob] += sr
                    leads = R == "BF16" ? lead_one : lead_all
                    if (pr && leads && worst >= -0.5 && tot / pr > bestm) { best = f; bestm = tot / pr }
                }
                if (best != "")
                    printf "decides: %s make default %s (%s)\n", R, best, flip(R, best)
                else
                    printf "decides: %s keep %s\n", R, base[R]
            }
            if (tried["stagger"] && lost["stagger"] == tried["stagger"])
                print "decides: delete the staggered walk (slower in all " tried["stagger"] " pairs: cfg.stagger, parts.c gemv_walk_start/gemv_walk_kt, --stagger, the tests)"
            else if (tried["stagger"])
                print "decides: keep the staggered walk opt-in where not made default (--stagger 1; " lost["stagger"] " of " tried["stagger"] " pairs slower)"
            if (tried["rows"] && lost["rows"] == tried["rows"])
                print "decides: delete the ring'"'"'s 4 rows a warp (slower in all " tried["rows"] " pairs: gemv_rows_per_warp'"'"'s ring case, lib.c CUTE_GEMV_RING_ROWS, the tests)"
            else if (tried["rows"])
                print "decides: keep the ring'"'"'s 4 rows a warp opt-in where not made default (--warp-rows 4; " lost["rows"] " of " tried["rows"] " pairs slower)"
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
    device_gemv_run --dtype bf16 --shape 4099x4104 --batch 2 --warp-rows 4
    rm -f "$pairs"
    GEMV_TIMEOUT=20
    forms_pass FEW 7168x16384x1 2/4/0,2/4/1,1/4/1 --dtype nvfp4 --shape 7168x16384
    forms_pass MANY 4096x7168x8 1/4/0,1/4/1 --dtype nvfp4 --shape 4096x7168 --batch 8
    GEMV_TIMEOUT=12
    for s in 16384x4096 8192x8192 4096x16384; do
        forms_pass BF16 "$s" 1/0/0,1/0/1,1/4/0 --dtype bf16 --shape "$s"
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
