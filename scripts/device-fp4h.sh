#!/bin/sh
# The NVFP4 and bf16 GEMV pass of branch fp4h on a GPU machine (issue 17), about 60-80 s on one
# H200 after the build.  ncu (session 33) saw NVFP4 (7168,16384,1) latency-bound: 128
# registers, 19.5% achieved occupancy, long-scoreboard stalls 51.7%.  fp4h's forms, opt-in
# (`--warps W --kwarps S`, cute_gemv_lib_block_warps; docs/gemv.md, "The block"):
#   warps 1 or 2: blocks of 1 or 2 warps instead of 4 (the same registers a thread): at
#     (7168,16384,1) the 448 blocks of 4 warps are 3 or 4 an SM (the SMs with 4 carry 16 warps
#     of work, the mean is 13.6); 1,792 blocks of one warp are 13 or 14.  The bf16 GEMV takes
#     it too (its ring a warp's; blocks turn over a warp at a time at 16384x4096's 8 k-tiles);
#   kwarps 2 or 4 (NVFP4): that many warps of a block take the same four rows, each k-tile
#     split among them, their sums added in shared memory at the end;
#   rows 8 (NVFP4, one ahead, 128 registers): a warp's 8 rows share x's decode (about 11% fewer
#     instructions a byte of A), 4 KB of A in flight a warp, half the warps;
#   L2 D (NVFP4): each step also asks L2 (prefetch.global.L2) for the warp's k-tile D past its
#     registers' loads: DRAM's latency paid ahead without registers; with it three k-tiles
#     ahead fit 128 registers in blocks of one warp (6 KB a warp in flight).
# A form is A/W/S[/R[/D]]: k-tiles ahead / warps a block / warps a k-tile / rows a warp (4
# where not given) / L2 prefetch past the loads (0 where not given); bf16: W alone.  The
# library's: NVFP4 2/4/1 at (7168,16384,1) (FEW: blocks of 16 rows 4 an SM or fewer), 1/4/1 at
# (4096,7168,8) (MANY); bf16 4 warps.  First the new pieces on the GPU against float64 at odd
# sizes, then at each shape one process runs its forms twice in rounds (`cutec bench gemv
# --forms`: one problem, each form's first run checked against float64, each row beside a
# device copy of the same bytes; ptxas, sm_90a, fp4h's machine: no spills in any of them, 80
# registers one ahead, 128 two ahead or 8 rows; bf16 in blocks of one warp 71).
# What this pass decides (% of the copy, pairs = a form and the library's in one round):
#   NVFP4, per regime: a form at least 1 point faster in both rounds is faster; the fastest
#   such (mean) -> "make default" (nvfp4.c: form_few or form_many {A, W, S, R, D}), none ->
#   "keep".  Per knob (L2 > 0; else rows 8; else kwarps > 1; else warps < 4): slower in every
#   pair at both shapes -> "delete" it, else "keep opt-in".
#   bf16: W warps at least 1 point faster in both rounds at 16384x4096, at least +0.5 mean
#   over the three shapes and no pair more than 1 point slower -> "make default" (lib.c:
#   CUTE_GEMV_ROWS_WARPS 4 -> W); slower in every pair -> "delete"; else "keep".
# A form with a wrong element gets one pair, never two: never faster.  Past BUDGET_S (55) a
# step prints "skipped".  Logs in $OUT (default build/device-out); the log's tail is printed.
# `sh scripts/device-fp4h.sh decide FILE` prints the decisions of a pairs file alone (lines
# "REGIME ROUND FORM PCT", the library's form first in each round).
. scripts/device-common.sh
log="$out/fp4h.log"
start=$(date +%s) budget=${BUDGET_S:-55}
FEW_FORMS="2/4/1,2/1/1,1/1/1,1/1/1/8,2/1/1/4/2,3/1/1/4/2"
MANY_FORMS="1/4/1,1/1/1,2/1/1,1/4/2,1/1/1/8,1/4/1/4/2"
BF16_FORMS="1/4/1,1/1/1,1/2/1"
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
                        nq = split(f, q, "/")
                        knob = (nq > 4 && q[5] > 0) ? "l2" : (nq > 3 && q[4] == 8) ? "rows" : q[3] > 1 ? "kwarps" : "warps"
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
                no = split(base[R], o, "/"); if (no < 4) o[4] = 4; if (no < 5) o[5] = 0
                lr = tolower(R)
                if (best != "") {
                    nw = split(best, w, "/"); if (nw < 4) w[4] = 4; if (nw < 5) w[5] = 0
                    printf "decides: %s make default %s (nvfp4.c: form_%s {%s, %s, %s, %s, %s} -> {%s, %s, %s, %s, %s})\n",
                        R, best, lr, o[1], o[2], o[3], o[4], o[5], w[1], w[2], w[3], w[4], w[5]
                } else
                    printf "decides: %s keep %s (form_%s {%s, %s, %s, %s, %s} in nvfp4.c)\n", R, base[R], lr, o[1], o[2],
                        o[3], o[4], o[5]
            }
            split("warps kwarps rows l2", kn, " ")
            split("warps kwarps warp_rows l2_ahead", cf, " ")
            split("warps kwarps warp-rows l2-ahead", op, " ")
            for (g = 1; g <= 4; g++) {
                knob = kn[g]
                if (tried[knob] > 0 && lost[knob] == tried[knob])
                    printf "decides: delete NVFP4 %s (slower in all %d pairs: cfg.%s, its option and test)\n", knob,
                        tried[knob], cf[g]
                else
                    printf "decides: keep NVFP4 %s opt-in (--%s; %d of %d pairs slower)\n", knob, op[g], lost[knob], tried[knob]
            }
            # bf16: warps W the default if at least 1 point faster in every pair at 16384x4096,
            # the mean over the three shapes at least +0.5, and no pair more than 1 point slower
            best = ""; bestm = -1e9; all = 0; allslow = 0
            split("1/1/1 1/2/1", bw, " ")
            for (i = 1; i <= 2; i++) {
                f = bw[i]; ok = 1; tot = 0; np = 0
                for (g = 1; g <= nr; g++) {
                    R = regs[g]
                    if (R !~ /^bf16/) continue
                    against(R, f)
                    if (pairs < 2 || worst < -1) ok = 0
                    if (R == "bf16_16384x4096" && faster < pairs) ok = 0
                    tot += mean * pairs; np += pairs; all += pairs; allslow += slower
                }
                if (np && ok && tot / np >= 0.5 && tot / np > bestm) { best = f; bestm = tot / np }
            }
            if (best != "") {
                split(best, w, "/")
                printf "decides: bf16 make default %s warps a block (lib.c: CUTE_GEMV_ROWS_WARPS 4 -> %s)\n", w[2], w[2]
            } else if (all > 0 && allslow == all)
                printf "decides: delete warps for the GEMV (slower in all %d pairs; lib.c configure, compile.c rows1)\n", all
            else
                printf "decides: bf16 keep 4 warps a block (CUTE_GEMV_ROWS_WARPS in lib.c; --warps opt-in)\n"
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
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 2 --ahead 3 --warps 1 --l2-ahead 2
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 1 --warps 4 --kwarps 2
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --ahead 1 --warps 1 --warp-rows 8
    device_gemv_run --dtype bf16 --shape 4099x4104 --batch 2 --warps 1
    rm -f "$out/fp4h.pairs"
    # (each under a time limit: a process stopped keeps the rows it printed; the pairs
    # without a second round decide nothing)
    GEMV_TIMEOUT=28
    forms_pass FEW "$FEW_FORMS" --dtype nvfp4 --shape 7168x16384
    GEMV_TIMEOUT=24
    forms_pass MANY "$MANY_FORMS" --dtype nvfp4 --shape 4096x7168 --batch 8
    GEMV_TIMEOUT=20
    forms_pass "bf16_8192x8192 bf16_16384x4096 bf16_4096x16384" "$BF16_FORMS" --dtype bf16
    device_end
    echo "== decision (the rule in the header)"
    decide "$out/fp4h.pairs"
}
pass >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 100
