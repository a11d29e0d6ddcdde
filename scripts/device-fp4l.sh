#!/bin/sh
# The GEMV pass of branch fp4l on a GPU machine (issue 17), about 60 s on one H200 after the
# build (estimated).  Written in session 37, which had no GPU pass: nothing here was timed yet
# (predictions in bench/RESULTS.md, fp4l).  fp4l's form, opt-in: the ring's stages filled by
# bulk copies (`--ring-bulk 1`, cute_gemv_lib_ring_bulk, cfg.ring_bulk; docs/gemv.md, "The ring
# by bulk copies, and 2 rows a warp"; 4 stages: 4 blocks an SM, 3 stages: 6): each warp's
# k-tiles land in shared memory by cp.async.bulk (one lane a row's k-tile, one x's; NVFP4's
# scales as 16-byte quads, rows by scale tile), completing on an mbarrier a warp and stage, so
# that the bytes in flight hold no registers and a lane issues one or two copies a k-tile
# instead of ten 16- and 4-byte cp.async (the cp.async ring, 15 points slower for NVFP4 in
# session 30).  And the register form with 2 rows a warp (`--warp-rows 2`, bench form A/2):
# twice the warps of 4 rows for the same bytes in flight a row (one ahead 64 registers, 8 blocks
# an SM; two ahead 96, 5), x decoded for 2 rows instead of 4.
# What it runs: the bulk forms on the GPU against float64 first (odd M, K with a tail,
# batches, split-K), ptxas's registers, then per shape one process (`cutec bench gemv --forms`:
# one problem, each form's first run checked against float64, each row beside a device copy
# of the same bytes), two rounds, the second in reverse order: NVFP4 at the issue's
# (7168,16384,1), (4096,7168,8), (7168,2048,4) with the library's form (lib), bulk4, bulk3, 1/2, 2/2
# (k-tiles ahead / rows a warp), and at (7168,16384,1) the cp.async ring of 4 as a control (ring4:
# whether the bulk ring beats it says whether that ring's loss was its lanes' cp.async work);
# bf16 at 8192x8192, 16384x4096, 4096x16384 with the library's (the cp.async ring of 4),
# bulk4, bulk3.
# What it decides (a pair: a form and the library's in the same round, % of the copy): a form
# LEADS at a shape where both its pairs are at least +1 point.  NVFP4: a bulk form that leads
# at all three shapes -> "make default" (the best mean; nvfp4.c CUTE_GEMV_NVFP4_BULK_STAGES 0
# -> N); bf16: bulk4 or bulk3 leading at all three -> "make default" (gemv.h CUTE_GEMV_RING_BULK
# 0 -> 1, and CUTE_GEMV_RING_STAGES 4 -> 3 for bulk3).  A bulk form leading at some shapes only
# -> "keep opt-in" with those shapes named (a default by shape needs a rule in code); the bulk
# forms slower in every pair of their dtype -> "delete".  The 2-row forms A/2, by the rule
# nvfp4.c already has (two_ahead_pays: blocks of 16 rows 4 an SM or fewer, FEW; pipeline_pays:
# 6 or more, MANY): the best A/2 leading at (7168,16384,1) -> "make default" there (form_few
# {2, 4} -> {A, 2}), at (4096,7168,8) -> form_many {1, 4} -> {A, 2}; the 2-row forms slower in
# every pair -> "delete 2 rows a warp"; else "keep opt-in".  A wrong or missing row is no pair.
# Past BUDGET_S (85) a step prints "skipped".  Logs in $OUT (default build/device-out); the
# log's tail is printed.  `sh scripts/device-fp4l.sh decide FILE` prints the decisions of a
# pairs file alone (lines "DTYPE SHAPE ROUND FORM PCT").
. scripts/device-common.sh
log="$out/fp4l.log" pairs="$out/fp4l.pairs"
start=$(date +%s) budget=${BUDGET_S:-85}
FORMS="lib,bulk4,bulk3,1/2,2/2"
BF16_FORMS="lib,bulk4,bulk3"
decide()
{
    awk '{ pct[$1, $2, $3, $4] = $5
           if (!(($1, $2) in seen)) { seen[$1, $2] = 1; shapes[$1] = shapes[$1] " " $2 }
           if (!(($1, $4) in fseen) && $4 != "lib") { fseen[$1, $4] = 1; forms[$1] = forms[$1] " " $4 } }
        # form f against lib at (dtype d, shape s): pairs, leads (all pairs >= +1), mean
        function against(d, s, f,    r, b, v) {
            pairs = 0; up = 0; down = 0; sum = 0
            for (r = 1; r <= 2; r++) {
                b = pct[d, s, r, "lib"]; v = pct[d, s, r, f]
                if (b == "" || v == "" || b == "-" || v == "-") continue
                pairs++; sum += v - b
                if (v - b >= 1) up++
                if (v - b < 0) down++
            }
            mean = pairs ? sum / pairs : 0
            return pairs == 2 && up == 2
        }
        END {
            split("nvfp4 bf16", ds, " ")
            for (g = 1; g <= 2; g++) {
                d = ds[g]
                if (!(d in shapes)) { printf "decides: %s keep (no figures)\n", d; continue }
                ns = split(shapes[d], ss, " "); nf = split(forms[d], fs, " ")
                best = ""; bestm = -1e9; tried = 0; lost = 0; rt = 0; rl = 0
                few = ""; fewm = -1e9; many = ""; manym = -1e9
                for (i = 1; i <= nf; i++) {
                    f = fs[i]; leads = 0; where = ""; tot = 0; rows = f ~ /\//; control = f ~ /^ring/
                    for (j = 1; j <= ns; j++) {
                        l = against(d, ss[j], f); tot += mean
                        if (control) { if (pairs) printf "%s %s %s (the cp.async ring, a control): %d pairs, mean %+.1f points against lib\n", d, ss[j], f, pairs, mean; continue }
                        if (rows) { rt += pairs; rl += down } else { tried += pairs; lost += down }
                        printf "%s %s %s: %d pairs, mean %+.1f points against lib%s\n", d, ss[j], f, pairs, mean,
                            l ? " (leads)" : ""
                        if (l) { leads++; where = where " " ss[j] }
                        if (rows && l && ss[j] == "7168x16384x1" && mean > fewm) { few = f; fewm = mean }
                        if (rows && l && ss[j] == "4096x7168x8" && mean > manym) { many = f; manym = mean }
                    }
                    if (rows || control) continue
                    if (leads == ns && ns == 3 && tot / ns > bestm) { best = f; bestm = tot / ns }
                    else if (leads) printf "decides: %s %s keep opt-in; leads at%s only (a default there needs a rule by shape)\n", d, f, where
                }
                if (few != "") { split(few, q, "/"); printf "decides: nvfp4 FEW make default %s (nvfp4.c: form_few {2, 4} -> {%s, %s})\n", few, q[1], q[2] }
                if (many != "") { split(many, q, "/"); printf "decides: nvfp4 MANY make default %s (nvfp4.c: form_many {1, 4} -> {%s, %s})\n", many, q[1], q[2] }
                if (rt && rl == rt)
                    printf "decides: %s delete 2 rows a warp (slower in all %d pairs: warp_rows 2, WORDS_BLOCKS_2ROWS*)\n", d, rt
                else if (rt && few == "" && many == "")
                    printf "decides: %s keep 2 rows a warp opt-in (--warp-rows 2; %d of %d pairs slower)\n", d, rl, rt
                if (best != "") {
                    n = substr(best, 5)
                    if (d == "nvfp4")
                        printf "decides: nvfp4 make default %s (nvfp4.c: CUTE_GEMV_NVFP4_BULK_STAGES 0 -> %s)\n", best, n
                    else
                        printf "decides: bf16 make default %s (gemv.h: CUTE_GEMV_RING_BULK 0 -> 1%s)\n", best,
                            n == 4 ? "" : ", CUTE_GEMV_RING_STAGES 4 -> " n
                } else if (tried && lost == tried)
                    printf "decides: %s delete the bulk ring (slower in all %d pairs)\n", d, tried
                else
                    printf "decides: %s keep the bulk ring opt-in (--ring-bulk 1; %d of %d pairs slower)\n", d, lost, tried
            }
        }' "$1"
}
[ "${1:-}" = decide ] && decide "$2" && exit 0
# one process of two rounds (the second reversed) at the shapes given by SHAPES (names, in the
# bench's order); its rows into the pairs file: dtype, shape, round, form, % ("-": wrong)
forms_pass()
{
    dtype=$1 shapes=$2 forms=$3
    shift 3
    rev=$(echo "$forms" | awk -F, '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? "," : "") }')
    all="$forms,$rev"
    echo "== $dtype $shapes: $* --forms $all"
    rows=$(device_gemv --dtype "$dtype" "$@" --forms "$all")
    echo "$rows"
    echo "$rows" | grep -E "%|WRONG|failed: no time|skipped" | awk -v D="$dtype" -v S="$shapes" -v F="$all" '
        BEGIN { n = split(F, f, ","); split(S, ss, " ") }
        /skipped/ { exit }
        { i = (i % n) + 1; if (i == 1) s++; v = $NF; if ($NF == "WRONG" || /failed: no time/) v = "-"; sub("%", "", v)
          if (s in ss) print D, ss[s], i <= n / 2 ? 1 : 2, f[i], v }' >>"$pairs"
}
pass()
{
    device_begin
    device_gpu || return
    echo "== the bulk ring on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 2 --smem-stages 4 --ring-bulk 1
    device_gemv_run --dtype bf16 --shape 4099x4104 --batch 2 --smem-stages 3 --ring-bulk 1
    device_gemv_run --dtype f16 --shape 1000x5000 --splits 3 --smem-stages 4 --ring-bulk 1
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 2 --warp-rows 2
    device_gemv_usage "nvfp4 --smem-stages 4 --ring-bulk 1" "nvfp4 --smem-stages 3 --ring-bulk 1" \
        "nvfp4 --ahead 1 --warp-rows 2" \
        "nvfp4 --ahead 2 --warp-rows 2" "bf16 --smem-stages 4 --ring-bulk 1"
    rm -f "$pairs"
    # (each under a time limit: a process stopped keeps the rows it printed)
    GEMV_TIMEOUT=18
    forms_pass nvfp4 "7168x16384x1" "$FORMS,ring4" --shape 7168x16384
    GEMV_TIMEOUT=22
    forms_pass nvfp4 "4096x7168x8" "$FORMS" --shape 4096x7168 --batch 8
    GEMV_TIMEOUT=14
    forms_pass nvfp4 "7168x2048x4" "$FORMS" --shape 7168x2048 --batch 4
    GEMV_TIMEOUT=20
    forms_pass bf16 "8192x8192 16384x4096 4096x16384" "$BF16_FORMS"
    device_end
    echo "== decision (the rule in the header)"
    decide "$pairs"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 100
