#!/bin/sh
# The NVFP4 GEMV pass of branch fp4h on a GPU machine (issue 17), about 60 s on one H200 after
# the build.  ncu (session 33) saw (7168,16384,1) latency-bound: 128 registers, 19.5% achieved
# occupancy, long-scoreboard stalls 51.7%.  fp4h's forms of the register walk, opt-in
# (`--warps W --kwarps S`, cute_gemv_lib_block_warps; docs/gemv.md, "The block"):
#   warps 1 or 2: blocks of 1 or 2 warps instead of 4 (the same registers a thread): at
#     (7168,16384,1) the 448 blocks of 4 warps are 3 or 4 an SM (the SMs with 4 carry 16 warps
#     of work, the mean is 13.6); 1,792 blocks of one warp are 13 or 14;
#   kwarps 2 or 4: that many warps of a block take the same four rows, each k-tile split
#     among them (a k-tile 2 or 4 times as long), their sums added in shared memory at the
#     end: twice or four times the warps a row, each with its own loads in flight.
# Each form is A/W/S: k-tiles ahead / warps a block / warps a k-tile (the library's today:
# 2/4/1 at (7168,16384,1), blocks of 16 rows 4 an SM or fewer; 1/4/1 at (4096,7168,8), six or
# more).  First each new piece on the GPU against float64 at odd sizes (4100 rows: a partial
# last warp; K with a tail; batches), then at each shape one process runs its forms twice in
# rounds (`cutec bench gemv --forms`: one problem, each form's first run checked against
# float64, each row beside a device copy of the same bytes).
# What this pass decides, per shape (its regime: FEW = (7168,16384,1), MANY = (4096,7168,8)):
# a form at least 1 point of the copy faster than the library's in both rounds is faster;
# the fastest such (mean) -> "make default" (nvfp4.c: CUTE_GEMV_FORM_FEW or _MANY, {A, W, S});
# none -> "keep".  Then per knob: the forms with warps < 4 (kwarps 1), and with kwarps > 1,
# slower than the library's in every pair at both shapes -> "delete" that knob; else "keep
# opt-in".  A form with a wrong element is never faster.  Past BUDGET_S (70) a step prints
# "skipped".  Logs in $OUT (default build/device-out); the log's tail is printed.
# `sh scripts/device-fp4h.sh decide FILE` prints the decisions of a pairs file alone (lines
# "REGIME ROUND FORM PCT", the library's form first in each round).
. scripts/device-common.sh
log="$out/fp4h.log"
start=$(date +%s) budget=${BUDGET_S:-70} GEMV_TIMEOUT=35
FEW_FORMS="2/4/1,2/1/1,1/1/1,2/2/1,1/4/2,1/4/4,2/4/2"
MANY_FORMS="1/4/1,1/1/1,1/2/1,2/1/1,1/4/2,1/2/2"
decide()
{
    awk '{ pct[$1, $2, $3] = $4; if (!(($1, $3) in seen)) { seen[$1, $3] = 1; forms[$1] = forms[$1] " " $3 }
           if (!(($1, $2) in r)) { r[$1, $2] = 1; rounds[$1]++ }
           if (!($1 in base)) base[$1] = $3 }
        END {
            split("FEW MANY", regimes, " ")
            for (g = 1; g <= 2; g++) {
                R = regimes[g]
                if (!(R in base)) { printf "decides: %s keep (no figures)\n", R; continue }
                n = split(forms[R], fs, " "); best = ""; bestm = -1e9
                for (i = 1; i <= n; i++) {
                    f = fs[i]
                    if (f == base[R]) continue
                    pairs = 0; faster = 0; slower = 0; sum = 0
                    for (k = 1; k <= rounds[R]; k++) {
                        b = pct[R, k, base[R]]; v = pct[R, k, f]
                        if (b == "" || v == "" || b == "-" || v == "-") continue
                        pairs++; d = v - b; sum += d
                        if (d >= 1) faster++
                        if (d < 0) slower++
                        knob = (f ~ /\/1$/) ? "warps" : "kwarps"
                        tried[knob]++
                        if (d < 0) lost[knob]++
                    }
                    printf "%s %s: %d pairs, mean %+.1f points against %s, %d at least 1 faster, %d slower\n",
                        R, f, pairs, pairs ? sum / pairs : 0, base[R], faster, slower
                    if (pairs >= 2 && faster == pairs && sum / pairs > bestm) { best = f; bestm = sum / pairs }
                }
                split(base[R], o, "/")
                if (best != "") {
                    split(best, w, "/")
                    printf "decides: %s make default %s (nvfp4.c: CUTE_GEMV_FORM_%s {%s, %s, %s} -> {%s, %s, %s})\n",
                        R, best, R, o[1], o[2], o[3], w[1], w[2], w[3]
                } else
                    printf "decides: %s keep %s (CUTE_GEMV_FORM_%s {%s, %s, %s} in nvfp4.c)\n", R, base[R], R, o[1], o[2], o[3]
            }
            for (knob in tried)
                if (tried[knob] > 0 && lost[knob] == tried[knob])
                    printf "decides: delete %s (slower in all %d pairs: cfg.%s, its option and test)\n", knob, tried[knob], knob
                else
                    printf "decides: keep %s opt-in (--%s; %d of %d pairs slower)\n", knob, knob, lost[knob], tried[knob]
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
# the rows of one process's --forms run into the pairs file: regime, round, form, % of copy
# ("-" for a wrong or missing row); the forms list is run twice
forms_pass()
{
    regime=$1 forms=$2
    shift 2
    echo "== $regime: $* --forms $forms (twice)"
    rows=$(device_gemv --dtype nvfp4 "$@" --forms "$forms,$forms")
    echo "$rows"
    echo "$rows" | grep -E "%|WRONG|failed: no time|skipped" | awk -v R="$regime" -v F="$forms,$forms" '
        BEGIN { n = split(F, f, ","); half = n / 2 }
        /skipped/ { exit }
        { i++; v = $NF; if ($NF == "WRONG" || /failed: no time/) v = "-"; sub("%", "", v)
          if (i <= n) print R, (i <= half ? 1 : 2), f[i], v }' >>"$out/fp4h.pairs"
}
pass()
{
    device_begin
    if ! nvidia-smi >/dev/null 2>&1; then
        echo "== no GPU: skipped"
        return
    fi
    echo "== the new forms on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 3 --ahead 2 --warps 1
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 1 --warps 2 --kwarps 2
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 2 --ahead 1 --kwarps 4
    echo "== registers (ptxas, sm_90a)"
    for f in "--ahead 2 --warps 1" "--ahead 1 --warps 1" "--ahead 1 --kwarps 2" "--ahead 2 --kwarps 2"; do
        # shellcheck disable=SC2086
        echo "$f: $(build/cutec compile gemv --dtype nvfp4 --arch sm_90a --emit usage $f 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    done
    rm -f "$out/fp4h.pairs"
    forms_pass FEW "$FEW_FORMS" --shape 7168x16384
    forms_pass MANY "$MANY_FORMS" --shape 4096x7168 --batch 8
    device_end
    echo "== decision (the rule in the header)"
    decide "$out/fp4h.pairs"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
