# Shared steps of the scripts/device-*.sh passes (sourced, POSIX sh): the output folder
# $out ($OUT, default build/device-out), $sizes and $iters of the benchmarks, and
#   device_head: the run's head (time, commit, the GPU's clocks);  device_begin: it and the build
#   device_late ARGS: true, saying "-- skipped (past BUDGET_S): ARGS", once $budget seconds
#                     have passed since $start (the script sets both)
#   device_bench_gemm ARGS: "-- ARGS" and the table rows of `cutec bench gemm --variants
#                     tensorop_smem --iters $iters ARGS` (skipped past the budget)
#   device_bench_bf16 SECONDS SIZES ARGS: "-- at T s: ..." and `cutec bench gemm --dtype bf16
#                     --layout tn --variants hopper --iters $iters --sizes SIZES ARGS`, line
#                     buffered (a time limit keeps what it printed), T seconds since $start
#   device_tests T...: each test binary build/tests/T on the GPU, its log in $out, its
#                      last line and first failures printed ($TEST_TIMEOUT, default 300 s)
#   device_gemv ARGS: the rows of `cutec bench gemv --iters 20 ARGS` (line-buffered, under
#                     $GEMV_TIMEOUT s, default 40), unless past the budget
#   device_gemv_run ARGS: "run ARGS: " and the last line of `cutec run gemv --iters 5 ARGS`
#                     (every element of y checked against float64 on the GPU; 10 s)
#   device_gemv_bf16_torch T: the bf16 GEMV bench, torch.mv / torch.mm (bench/torch_gemv.py,
#                     under T s) and the skinny products as GEMVs with 1..128 vectors
#   device_gemv_usage CFG...: ptxas's registers and spills (sm_90a) of `cutec compile gemv
#                      --dtype CFG` for each configuration string
#   device_end: the clocks after the run and the seconds since $start
#   device_smi_start FILE, device_smi_end LABEL FILE: nvidia-smi every 100 ms into FILE (the
#                     first GPU of $CUDA_VISIBLE_DEVICES, else 0), then stopped and summed up:
#                     over the samples at 250 W or more the SM clock and power (min / median /
#                     max) and how many had the software power cap (0x4) among the clock's
#                     event reasons
#   device_records, device_compare A B ROW: the bench rows in $rows by form, and form B
#                     against form A in points of cuBLAS, shape by shape (the A/B scripts)
#   device_python: pip install ./python into a scratch target ($out/pip.log), then its
#                  tests (torch on the GPU, the kept calls, the interpreter) and the host
#                  overhead bench (the installed package, not the tree's)
#   el: the seconds since $start;  el_s: the same as "(N s)"
# and, below, each family's readers of a bench's rows: rows_pct (the row kernels' % of the
# copy), copy_pct (a GEMV row's), gemm_pct (a GEMM row's % of cuBLAS), attn_tops (an attention
# row's TFLOP/s), and the arithmetic on their figures (mean2, diff2, ratio, at_least,
# bench_atleast)
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
sizes=${SIZES:-4096,8192}
iters=${ITERS:-10}

device_head()
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
}
device_begin()
{
    device_head
    echo "== build"
    make -j16 all tests 2>&1 | grep -E "error|warning" | head -40
}

el() { echo $(($(date +%s) - start)); }
el_s() { echo "($(el) s)"; }

device_late()
{
    [ $(($(date +%s) - start)) -gt "$budget" ] && echo "-- skipped (past BUDGET_S): $*"
}

device_bench_gemm()
{
    device_late "$@" && return
    echo "-- $*"
    # shellcheck disable=SC2068
    timeout "${BENCH_TIMEOUT:-60}" build/cutec bench gemm --variants tensorop_smem --iters "$iters" $@ 2>&1 |
        grep -E "^ *[0-9]|rror|refus"
}

device_bench_bf16()
{
    lim=$1 s=$2
    shift 2
    echo "-- at $(($(date +%s) - start)) s: --sizes $s $*"
    # shellcheck disable=SC2068
    timeout "$lim" stdbuf -oL -eL build/cutec bench gemm --dtype bf16 --layout tn --sizes "$s" --variants hopper \
        --iters "$iters" $@ 2>&1
}

device_tests()
{
    echo "== tests on the GPU"
    for t in "$@"; do
        [ -x build/tests/$t ] && timeout "${TEST_TIMEOUT:-300}" build/tests/$t > "$out/$(basename $t).log" 2>&1
        echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
        grep -m 5 FAIL "$out/$(basename $t).log" | cut -c1-400
    done
}

device_gemv()
{
    device_late gemv "$@" && return
    stdbuf -oL -eL timeout "${GEMV_TIMEOUT:-40}" build/cutec bench gemv --iters 20 "$@" 2>&1 | grep -v "^#"
}

device_gemv_run()
{
    device_late run "$@" && return
    echo "run $*: $(stdbuf -oL -eL timeout 10 build/cutec run gemv --iters 5 "$@" 2>&1 | tail -n 1)"
}

device_gemv_bf16_torch()
{
    echo "== bench gemv bf16"
    device_gemv --dtype bf16
    echo "== torch.mv / torch.mm, same session"
    device_late torch || stdbuf -oL -eL timeout "$1" python3 bench/torch_gemv.py 2>&1
    echo "== skinny as GEMVs with vectors: 8192x8192 x N (GB/s of A + X + Y; copy: those bytes D2D)"
    for n in 1 8 16 32 64 128; do device_gemv --dtype bf16 --shape 8192x8192 --vectors $n | tail -n 1; done
}

# device_gpu: true with a GPU; else false, saying "== no GPU: skipped" (`device_gpu || return`)
device_gpu()
{
    nvidia-smi >/dev/null 2>&1 && return 0
    echo "== no GPU: skipped"
    return 1
}
# copy_pct ROW: the "of copy" figure of a GEMV bench row (its last N%, without %); "" if none
# or WRONG
copy_pct() { echo "$1" | grep -v WRONG | grep -oE '[0-9.]+%' | tail -n 1 | tr -d '%'; }

device_gemv_usage()
{
    echo "== registers and spills (ptxas, sm_90a)"
    for a in "$@"; do
        # shellcheck disable=SC2086
        echo "$a: $(build/cutec compile gemv --dtype $a --arch sm_90a --emit usage 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    done
}

device_end()
{
    echo "== clocks after ($(($(date +%s) - start)) s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
}

device_smi_gpu() { g=${CUDA_VISIBLE_DEVICES:-0}; echo "${g%%,*}"; }
device_smi_start()
{
    smi_gpu=$(device_smi_gpu) smi_fields=clocks.sm,power.draw,clocks_event_reasons.active
    nvidia-smi -i "$smi_gpu" --query-gpu=$smi_fields --format=csv,noheader,nounits >/dev/null 2>&1 ||
        smi_fields=clocks.sm,power.draw,clocks_throttle_reasons.active
    nvidia-smi -i "$smi_gpu" --query-gpu=$smi_fields --format=csv,noheader,nounits -lms 100 >"$1" 2>&1 &
    smi_pid=$!
}
device_smi_end()
{
    kill "$smi_pid" 2>/dev/null
    wait "$smi_pid" 2>/dev/null
    awk -F', *' -v n="$1" -v g="$(device_smi_gpu)" '
        $2 + 0 >= 250 { k++; c[k] = $1 + 0; p[k] = $2 + 0; r = $3; v = (r ~ /^0x/) ? hex(r) : r + 0; if (int(v / 4) % 2) cap++ }
        function hex(s,   i, d, x) { x = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) { d = index("0123456789abcdef", substr(s, i, 1)) - 1; x = x * 16 + d } return x }
        function sort(a, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
        END { if (!k) { print "   sampled GPU " g " (" n "): no sample at 250 W or more (" NR " lines)"; exit }
              sort(c, k); sort(p, k)
              printf "   sampled GPU %s (%s): %d samples at >= 250 W: SM %d / %d / %d MHz, %d / %d / %d W (min / median / max), the power cap in %d\n",
                  g, n, k, c[1], c[int((k + 1) / 2)], c[k], p[1], p[int((k + 1) / 2)], p[k], cap + 0 }' "$2"
}

device_python()
{
    echo "== python/: pip install into a scratch target, its tests, host overhead per call"
    site=$(mktemp -d)
    if pip install -q --no-build-isolation --target "$site" ./python >"$out/pip.log" 2>&1; then
        pypath=$site lib=
    else
        echo "pip install failed ($(tail -n 1 "$out/pip.log")): the package from the tree"
        pypath=$PWD/python lib=$PWD/build/libcutec.so
    fi
    (cd python/tests && PYTHONPATH="$pypath" CUTEC_LIB=$lib timeout 120 \
        python3 -m unittest -v test_torch test_fast_path test_interp 2>&1 | tail -n 40)
    PYTHONPATH="$pypath" CUTEC_LIB=$lib timeout 120 python3 python/bench_overhead.py "$@" 2>&1
}

# The row scripts' benchmarks under a budget: set start=$(date +%s) and budget (seconds);
#   budget_left: true while the budget is not spent
#   bench_bf16 ARGS...: `cutec bench ARGS --dtype bf16 --iters $iters` (one timeout of
#                       $BENCH_TIMEOUT s, default 50; line-buffered: a bench the timeout
#                       stops keeps the rows it printed), or a "skipped (time)" line
#   rows_gpu_test SECONDS LEN...: build/tests/kernels/rows/rows_gpu_test LEN... under a time
#                       limit (line-buffered), its log in $out, its last line and failures
#   rows_new ARGS...:   bench_bf16 without PyTorch, with the default plans
budget_left() { [ $(($(date +%s) - start)) -lt "$budget" ]; }
rows_gpu_test()
{
    lim=$1
    shift
    echo "== the GPU test at $* ($lim s)"
    timeout "$lim" stdbuf -oL -eL build/tests/kernels/rows/rows_gpu_test "$@" >"$out/rows_gpu_test.log" 2>&1
    echo "rows_gpu_test $* (rc $?): $(tail -n 1 "$out/rows_gpu_test.log")"
    grep -E "FAIL|resident|checked" "$out/rows_gpu_test.log" | cut -c1-400 | head -n 24
}
#   rows_pct FILE OP DIR SHAPE [TURN]: the % of the copy (without %) of the TURN-th (default
#                       1st) row of OP in a `cutec bench` table FILE, "W" where that row is
#                       WRONG or failed, nothing where there is none; DIR ("fwd", "bwd") and
#                       SHAPE ("1024x262144") pick the rows, "" for any
#   rows_trial_bench NAME T OP S [TAG [ENV=VALUE...]]: "-- CUTEC_ROWS_TRIAL=T OP S TAG" and the
#                       rows of `cutec bench OP --shape S` with CUTEC_ROWS_TRIAL=T ("0": none),
#                       the whole output in $out/NAME.one; TAG "torch": torch's eager beside,
#                       else none and each ENV=VALUE set for it
#   mean2 A B, diff2 A B: the mean, the difference of two such figures (%.2f): "W" if either
#                       is, the one there (mean2) or "" (diff2) if one is missing
rows_pct()
{
    [ -f "$1" ] || return 0
    awk -v op="$2" -v dir="$3" -v s="$4" -v turn="${5:-1}" '$1 == op && (dir == "" || $2 == dir) &&
        (s == "" || $4 == s) && ++k == turn { p = $8; sub("%", "", p); print (/WRONG|failed/ ? "W" : p) }' "$1"
}
rows_trial_bench()
{
    name=$1 t=$2 op=$3 s=$4
    echo "-- CUTEC_ROWS_TRIAL=$t $op $s ${5:-}"
    if [ "${5:-}" = torch ]; then
        CUTEC_ROWS_TRIAL=$t bench_bf16 "$op" --shape "$s" >"$out/$name.one" 2>&1
    else
        shift $(($# < 5 ? $# : 5))
        (for a in "$@"; do export "${a?}"; done
            CUTEC_ROWS_TRIAL=$t CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$op" --shape "$s") >"$out/$name.one" 2>&1
    fi
    grep -v "^# \(check\|time\|index\)" "$out/$name.one"
}
mean2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "W" || b == "W") print "W"; else if (a == "" || b == "") print a b; else printf "%.2f", (a + b) / 2 }'; }
diff2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "W" || b == "W") print "W"; else if (a == "" || b == "") print ""; else printf "%.2f", a - b }'; }
rows_new() { CUTEC_TORCH_ROWS=/dev/null bench_bf16 "$@"; }
bench_bf16()
{
    if budget_left; then
        echo "== $(($(date +%s) - start)) s: bench $* (bf16)"
        timeout "${BENCH_TIMEOUT:-50}" stdbuf -oL -eL build/cutec bench "$@" --dtype bf16 --iters "$iters" 2>&1
    else
        echo "== skipped (time): bench $*"
    fi
}

# The Hopper GEMM scripts' filters of a bench's output:
#   stamp: each line with the UTC time (HH:MM:SS.mmm) before it
#   quiet: a stamped bench without its notes on checks, timing, index width and cuBLAS
# device_records: "FORM DTYPE SHAPE ROW PCT" of every row of $rows checked ok, the rows of
# bench processes each headed "-- form=F dtype=D ..." (a kernel row: "TIME SIZE ROW MS TFLOPS PCT")
device_records()
{
    awk '/^-- form=/ { split($2, a, "="); f = a[2]; split($3, b, "="); d = b[2]; shape = ""; next }
        $2 == "#" && $3 == "M" { m = $4; n = $6; k = $8; gsub(/[,:]/, "", m); gsub(/[,:]/, "", n); gsub(/[,:]/, "", k)
                                 shape = m "x" n "x" k; next }
        $2 == "#" { next }
        $NF == "ok" && $3 != "cublas" { p = $6; sub("%", "", p); print f, d, (shape != "" ? shape : $2 "^3"), $3, p }' "$rows"
}
# device_compare A B ROW: per (dtype, shape) with both forms, B - A in points of cuBLAS (each
# form's runs' mean) of row ROW, a line each, then "mean MEAN min MIN count N" (nothing if none)
device_compare()
{
    device_records | awk -v A="$1" -v B="$2" -v R="$3" '$4 == R && ($1 == A || $1 == B) {
            key = $2 " " $3; s[$1, key] += $5; c[$1, key]++; keys[key] = 1 }
        END { for (k in keys) if (c[A, k] && c[B, k]) {
                a = s[A, k] / c[A, k]; b = s[B, k] / c[B, k]; d = b - a
                printf("  %s %s: %s %.2f (%d runs) against %s %.2f (%d): %+.2f points\n", k, R, B, b, c[B, k], A, a, c[A, k], d)
                t += d; n++; if (n == 1 || d < lo) lo = d }
            if (n) printf("mean %.2f min %.2f count %d\n", t / n, lo, n) }'
}
# gemm_pct FILE SIZE PATTERN: the % of cuBLAS (without %) of the first row of a `cutec bench
# gemm` table FILE checked ok whose name (field 2) matches PATTERN (an awk regex) and, SIZE not
# empty, whose size (field 1) is SIZE; nothing where there is none
gemm_pct()
{
    awk -v s="$2" -v pat="$3" '(s == "" || $1 == s) && $2 ~ pat && / ok/ { p = $5; sub("%", "", p); print p; exit }' \
        "$1" 2>/dev/null
}
stamp() { while IFS= read -r l; do echo "$(date -u +%T.%N | cut -c1-12) $l"; done; }
quiet() { grep -v "^[0-9:.]* # \(check\|time\|index\|  (allowed\|cuBLAS:\|bf16 ->\)"; }

# The fp8 scripts' GEMMs (e4m3 -> bf16, A and B K-major, the hopper kernel):
#   fp8_bench SECONDS ARGS...: `cutec bench gemm ARGS --iters $iters` under a timeout,
#                              line-buffered (a killed bench still prints its rows)
#   fp8_usage ARGS...: ptxas's registers and spills of `cutec compile gemm ARGS` (sm_90a)
fp8_bench()
{
    lim=$1
    shift
    lb=
    command -v stdbuf >/dev/null && lb="stdbuf -oL -eL"
    # shellcheck disable=SC2086
    timeout "$lim" $lb build/cutec bench gemm --dtype e4m3 --out-dtype bf16 --layout tn --variants hopper \
        --iters "$iters" "$@" 2>&1
}
fp8_usage()
{
    CUTEC_NO_CACHE=1 timeout 8 build/cutec compile gemm --dtype e4m3 --out-dtype bf16 --variant hopper --layout tn \
        --arch sm_90a "$@" --emit usage 2>&1 | grep -E "registers|spill" | tr '\n' ' '
}
#   fp8_block_run ARGS...: the last two lines (its verdict) of `cutec run gemm` of block scales,
#                          e4m3 -> bf16, C row-major, 1021x1016x1024 with ARGS: every element
#                          against float64 on the GPU (12 s at most)
fp8_block_run()
{
    timeout 12 stdbuf -oL build/cutec run gemm --dtype e4m3 --out-dtype bf16 --layout tnt --variant hopper --scale block \
        --m 1021 --n 1016 --k 1024 "$@" 2>&1 | tail -n 2 | tr '\n' ' '
}
#   gemm_gpu_head: "== DATE COMMIT", the GPU's clocks, and without a GPU "skipped: no GPU" and
#                  budget=-1 (the Hopper GEMM scripts' head, their build after it)
gemm_gpu_head()
{
    device_head
    if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; budget=-1; fi
}
#   fp8_clocks: the GPUs' clocks after the runs;  fp8_show LOG: the log without the bench's
#               notes on checks, timing and index width
fp8_clocks()
{
    echo "== $(($(date +%s) - start)) s: clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
}
fp8_show() { grep -v "^# \(check\|time\|index\|  (allowed\)" "$1" | tail -n 70; }

# The attention scripts' steps, under a budget: set t0=$(date +%s) and budget (seconds);
#   device_stamp TEXT: "== HH:MM:SS +N s: TEXT"
#   device_step SECONDS CMD...: CMD under timeout SECONDS, line-buffered (a killed command
#                               still shows what it printed), if the budget has that room
#   device_gpu_head TEXT: device_stamp TEXT, the GPU's clocks, and without a GPU "== no GPU:
#                         every step below skipped" and budget=0
#   attn_tops FILE KIND: the TFLOP/s of a `cutec bench attention` table's causal (KIND c) or
#                        non-causal (n) row; "" if missing or WRONG
#   ratio A B: A / B (%.4f; empty when either is);  at_least R X: true when R >= X
#   attn_bench NAME SDPA_AT SHAPE ARGS FORM SECONDS: `cutec bench attention ARGS` under
#                        device_step into $out/NAME-SHAPE.txt, the default (FORM "": SDPA beside
#                        where SHAPE is one of SDPA_AT) or, under the script's `env_of FORM`
#                        and without SDPA, into NAME-SHAPE-FORM.txt (skipped, saying so, where
#                        the default has no row)
#   attn_ratio NAME FORM SHAPE KIND: FORM's TFLOP/s over the default's at SHAPE, row KIND
#   attn_figures NAME FORM: FORM's ratios to the default at 4k, 16k and 64 (n4 n16 n64, causal
#                        c4 c16 c64) and $what, their line; $bad, the first files of NAME's checks
#                        and FORM's rows with a WRONG or FAILED; $slower, 1 when no ratio
#                        reaches 0.995
#   attn_summary NAME FORMS: "== SHAPE[-FORM]: not causal T, causal T" of $out/NAME-SHAPE[-FORM].txt
#                        for each SHAPE of 4k 16k 64, the default then each of FORMS
device_stamp() { echo "== $(date -u +%T) +$(($(date +%s) - t0)) s: $*"; }
device_gpu_head()
{
    device_stamp "$*"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    nvidia-smi -L >/dev/null 2>&1 || { echo "== no GPU: every step below skipped"; budget=0; }
}
attn_tops()
{
    awk -v k="$2" '/^(bf16|f16) / && !/WRONG/ && $(NF-3) ~ /^[0-9.]+$/ {
        if ((k == "c") == ($0 ~ / causal/)) { print $(NF-3); exit } }' "$1" 2>/dev/null
}
attn_bench()
{
    nosdpa="CUTEC_TORCH_ATTENTION=/nonexistent/no-sdpa.py"
    if [ -z "$5" ]; then
        sd=$nosdpa
        case " $2 " in *" $3 "*) sd="" ;; esac
        device_step "$6" env $sd build/cutec bench attention $4 | tee "$out/$1-$3.txt"
    elif grep -q "^bf16" "$out/$1-$3.txt" 2>/dev/null; then # (no default there: no form)
        device_step "$6" env $nosdpa $(env_of "$5") build/cutec bench attention $4 | tee "$out/$1-$3-$5.txt"
    else
        echo "== skipped (no default at $3): $5" | tee "$out/$1-$3-$5.txt"
    fi
}
attn_ratio() { ratio "$(attn_tops "$out/$1-$3-$2.txt" "$4")" "$(attn_tops "$out/$1-$3.txt" "$4")"; }
attn_figures()
{
    n4=$(attn_ratio "$1" "$2" 4k n) n16=$(attn_ratio "$1" "$2" 16k n) n64=$(attn_ratio "$1" "$2" 64 n)
    c4=$(attn_ratio "$1" "$2" 4k c) c16=$(attn_ratio "$1" "$2" 16k c) c64=$(attn_ratio "$1" "$2" 64 c)
    what="$2/default: d128 4k x$n4 (causal x$c4), 16k x$n16 (causal x$c16), d64 x$n64 (causal x$c64)"
    bad=$(grep -l "WRONG\|FAILED" "$out"/$1-check*.txt "$out"/$1-*-"$2".txt 2>/dev/null | head -3)
    slower=1
    for r in $n4 $n16 $n64 $c4 $c16 $c64; do at_least "$r" 0.995 && slower=0; done
}
attn_summary()
{
    for s in 4k 16k 64; do
        for f in "" $2; do
            g=$s${f:+-$f}
            echo "== $g: not causal $(attn_tops "$out/$1-$g.txt" n), causal $(attn_tops "$out/$1-$g.txt" c)"
        done
    done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b > 0) printf "%.4f", a / b }'; }
at_least() { awk -v r="$1" -v x="$2" 'BEGIN { exit !(r != "" && r >= x) }'; }
device_step()
{
    t=$1 && shift
    if [ $(($(date +%s) - t0 + t)) -gt "$budget" ]; then echo "== skipped (time): $*"; return; fi
    device_stamp "$*"
    timeout "$t" stdbuf -oL -eL "$@" 2>&1
}

# The GEMM decision scripts' readings of a bench table (device-sk13.sh, device-s14.sh):
#   bench_tops FILE PATTERN: the TFLOP/s (field 4) of the first row whose name matches
#                            PATTERN (empty: none)
#   bench_atleast A B R: 1 when A >= B x R, else 0 (an empty operand gives 0)
bench_tops() { awk -v pat="$2" '$2 ~ pat && $4 ~ /^[0-9.]+$/ { print $4; exit }' "$1"; }
bench_atleast() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { print (a != "" && b != "" && a >= b * r) ? 1 : 0 }'; }

# The SM80 GEMM scripts' steps (device-s13.sh, device-s15.sh, device-sk13.sh; start and budget
# set):
#   sm80_gpu [MORE]: without a GPU, "== no GPU here: every GPU step skipped[MORE]" and budget=-1
#   sm80_check LABEL SECONDS CMD...: "run LABEL: " and CMD's verdict lines (a `cutec run gemm`
#                     checking every element against float64), unless past the budget
#   sm80_mma: the s8 rows of `cutec bench mma` (this run's mma.sync ceiling), unless past it
sm80_gpu()
{
    nvidia-smi -L >/dev/null 2>&1 && return
    echo "== no GPU here: every GPU step skipped${1:-}"
    budget=-1
}
sm80_check()
{
    label=$1 lim=$2
    shift 2
    device_late run "$label" && return
    echo "run $label: $(timeout "$lim" "$@" 2>&1 | grep -iE "verified|wrong|rror|fail" | head -2 | tr '\n' ' ')"
}
sm80_mma() { device_late mma || timeout 15 build/cutec bench mma --dtypes s8 --iters 3 2>&1 | grep -E "^s8"; }

# The compile scripts' checks (device-tier.sh, device-tier2.sh, device-ptx3.sh); they set
# gpu=1 bad=0, start and budget, and count failed checks in $bad:
#   compile_gpu_head: the driver's and ptxas's versions and the host's CPUs, or "no GPU" and gpu=0
#   gpu_late TEXT: true, saying why, without a GPU or past the budget
#   run_verdict ENV... -- ARGS: `cutec run ARGS` cold (CUTEC_NO_CACHE=1) under ENV: its verdict
#                     line and time; one not verified counts
#   gpu_test NAME PATH ENV...: a test binary under ENV, its log $out/NAME.log, its last line and
#                     first failures; one whose last line is not " 0 failed" counts
compile_gpu_head()
{
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "-- no GPU here: the GPU steps are skipped"
        gpu=0
    else
        echo "driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1); toolkit $(/usr/local/cuda/bin/ptxas --version 2>&1 | tail -n 1)"
        echo "CPU: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); load $(cut -d' ' -f1-3 /proc/loadavg)"
    fi
}
gpu_late() { [ "$gpu" = 0 ] && echo "-- skipped (no GPU): $*" && return 0; device_late "$@"; }
run_verdict()
{
    vars=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do vars="$vars $1" && shift; done
    shift
    gpu_late run "$@" && return
    # shellcheck disable=SC2086
    res=$(env CUTEC_NO_CACHE=1 $vars timeout 30 build/cutec run "$@" 2>&1)
    line=$(echo "$res" | grep -iE "verified|wrong|error|fail|refus|bad" | head -n 1 | cut -c1-150)
    echo "  $vars: $* -> $line; $(echo "$res" | grep -m 1 -oE "time: [0-9.]+ ms")"
    echo "$line" | grep -qi verified || bad=$((bad + 1))
}
gpu_test()
{
    name=$1 path=$2
    shift 2
    gpu_late "$name" && return
    env "$@" timeout 60 "$path" >"$out/$name.log" 2>&1
    echo "$name ($*): $(tail -n 1 "$out/$name.log")"
    grep -m 5 -E "FAIL|skipped" "$out/$name.log" | cut -c1-300
    tail -n 1 "$out/$name.log" | grep -q " 0 failed" || bad=$((bad + 1))
}
