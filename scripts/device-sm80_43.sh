#!/bin/sh
# Branch sm80_43's mid pass on one H200 (issue 13: the SM80 mma.sync GEMM at 4096^3 tn: bf16 65%
# of cuBLAS, f16 80% of its mma.sync ceiling), ~50 s of GPU work after the lead's `make all
# tests` (nothing is built here; a step past BUDGET is skipped, saying so); log $OUT/sm80_43.log.
# What it times, through the bench's own tiling options (no new kernel code): the 16-bit
# kernel's (256x128x64, 4x2 warps, 3 stages, a block a tile) tile order, `--raster 8` (the
# default: bands of 8 N tiles walking down M; each round of 132 tiles reads all of A and a
# quarter of B) against 16 (the squarest round: half of A, half of B, ~20% fewer distinct bytes
# a k-tile), 4 and 32; 4 stages of 64 (192 KB, fits sm_90's 227 KB; last timed in session 27,
# 481 against 486 at 8192^3, before the read-ahead across k-tiles) at raster 8 and 16; bf16 with
# C row-major (`--layout tnt`, what computing a column-major C as C^T would give: the
# accumulators' pairs adjacent in C; round 1 only, a reading).  Each form first runs on the GPU
# against float64 (every element); each bench row is also checked (256 elements); two rounds of
# processes, the default in each, cuBLAS beside.
# Then why f16 runs ~1.5% under bf16 (the same kernel, the same SASS but the type): f16 with its
# inputs cut to bf16's 8 significant bits (`--fill coarse`, new) against gaussian f16, and f16 and
# bf16 under sustained load (100 ms spans) with the SM clock, power and clock event reasons
# sampled every 10 ms.  Last, if 20 s of the budget are left, Nsight Compute on one launch of the
# bf16 default (for the count: stalls, shared memory, L2).
# The rule (points of this run's mma.sync ceiling of the dtype, each form's rows against the
# default r8's of the same process, or of the round's raster process): a form whose mean over
# the two rounds is >= +0.7 points and ahead in each round at both bf16 and f16 -> "candidate"
# (the final pass times it in turns against the default before any flip); mean <= -0.3 at both
# -> "slower"; else "within".  The coarse line is a diagnosis, never a flip: its points are what
# gaussian f16's bits cost.
#   BUDGET=50 sh scripts/device-sm80_43.sh
. scripts/device-common.sh
log="$out/sm80_43.log"
start=$(date +%s)
budget=${BUDGET:-50}
rows="$out/sm80_43.rows"
: >"$rows"
: >"$out/bad.txt"
# bench TAG ROUND DTYPE ARGS...: `cutec bench gemm --variants tensorop_smem --sizes 4096` (tn unless
# ARGS give --layout) into $out/TAG-DTYPE-ROUND.txt, its rows printed; "TAG+SUFFIX DTYPE ROUND
# TFLOPS" of each row appended to $rows (SUFFIX: what follows tensorop_smem, "r8"; TFLOPS "W" where the
# row's check did not say ok)
bench()
{
    tag=$1 round=$2 d=$3
    shift 3
    f="$out/$tag-$d-$round.txt"
    device_late "$tag $d $round" && return
    echo "-- $tag $d round $round: $* $(el_s)"
    # shellcheck disable=SC2068
    timeout 20 stdbuf -oL -eL build/cutec bench gemm --dtype "$d" --layout tn --variants tensorop_smem --sizes 4096 \
        --iters 10 $@ >"$f" 2>&1
    grep -E "^ *[0-9]|rror|WRONG|SM clock" "$f"
    awk -v tag="$tag" -v d="$d" -v r="$round" '$1 == 4096 && $2 ~ /^tensorop_smem/ {
        s = $2; sub("tensorop_smem", "", s); if (s == "") s = "r8"; print tag "+" s, d, r, ($NF == "ok" ? $4 : "W") }' \
        "$f" >>"$rows"
}
# check LABEL ARGS...: `cutec run gemm ARGS` (every element against float64 on the GPU): its verdict,
# LABEL appended to $out/bad.txt unless verified
check()
{
    label=$1
    shift
    device_late run "$label" && return
    v=$(timeout 15 build/cutec run gemm "$@" 2>&1 | grep -iE "verified|wrong|rror|fail|refus" | head -n 2 | tr '\n' ' ')
    echo "run $label: $v"
    echo "$v" | grep -q "verified" || echo "$label" >>"$out/bad.txt"
}
# ceiling DTYPE: this run's mma.sync rate of DTYPE (TFLOP/s or TOPS)
ceiling() { awk -v d="$1" '$1 == d && $2 ~ /^mma.sync/ { print $3; exit }' "$out/mma.txt"; }
# decide DTYPES FORM [BASE]: the rule's line for FORM (a "TAG+SUFFIX" of $rows) against BASE (default
# "TAG+r8", the default's row of the same process; "ras+r8", that of the round's raster process), over
# the dtypes DTYPES (comma-separated)
decide()
{
    base=${3:-"${2%%+*}+r8"}
    awk -v dts="$1" -v form="$2" -v base="$base" -v cb="$(ceiling bf16)" -v cf="$(ceiling f16)" -v cs="$(ceiling s8)" '
        BEGIN { c["bf16"] = cb; c["f16"] = cf; c["s8"] = cs; nd = split(dts, D, ",") }
        ($1 == form || $1 == base) && $4 == "W" { wrong = 1 }
        ($1 == form || $1 == base) && c[$2] > 0 && $4 != "W" { v[$1, $2, $3] = 100 * $4 / c[$2] }
        END {
            if (wrong) { printf "decides: %s against %s: revert (a row WRONG)\n", form, base; exit }
            line = ""; cand = 1; slow = 1; untimed = 0
            for (i = 1; i <= nd; i++) {
                d = D[i]; s = 0; n = 0; each = 1; txt = ""
                for (r = 1; r <= 2; r++) if ((form, d, r) in v && (base, d, r) in v) {
                    x = v[form, d, r] - v[base, d, r]; s += x; n++; if (x <= 0) each = 0
                    txt = txt sprintf(" %.2f/%.2f", v[base, d, r], v[form, d, r]) }
                if (n < 2) { untimed = 1; line = line sprintf("; %s: not timed twice", d); continue }
                m = s / n; if (!(m >= 0.7 && each)) cand = 0; if (!(m <= -0.3)) slow = 0
                line = line sprintf("; %s %+.2f points (default/form:%s)", d, m, txt) }
            verdict = untimed ? "not timed" : cand ? "candidate (the final pass times it in turns)" : slow ? "slower" : "within"
            printf "decides: %s against %s: %s%s\n", form, base, verdict, line }' "$rows"
}
# profile DTYPE: Nsight Compute on the third launch of the SM80 kernel in `cutec bench gemm` at
# 4096^3 (its check before it), clocks left alone: speed of light, the memory and warp-state
# sections and every stall reason a warp an issue; the lines that count printed, the whole in
# $out/ncu-DTYPE.txt.  Only with 20 s of the budget left.
profile()
{
    if [ $(($(el) + 20)) -gt "$budget" ]; then echo "-- skipped (past BUDGET): ncu $1"; return; fi
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    [ -n "$ncu" ] || { echo "-- no ncu here"; return; }
    timeout 25 "$ncu" --clock-control none -k regex:multistage --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
        --metrics "regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$,regex:^sm__pipe_tensor[a-z0-9_]*_cycles_active\.avg\.pct_of_peak_sustained_active$,regex:^l1tex__data_(bank_conflicts_pipe_lsu_mem_shared|pipe_lsu_wavefronts_mem_shared)\.sum$,smsp__issue_active.avg.pct_of_peak_sustained_active" \
        build/cutec bench gemm --dtype "$1" --layout tn --variants tensorop_smem --sizes 4096 --iters 1 >"$out/ncu-$1.txt" 2>&1
    echo "ncu rc $?: $(grep -c . "$out/ncu-$1.txt") lines"
    grep -E "Duration|SM Frequency|Throughput|Hit Rate|Busy|Warp Cycles|Issued Warp|stalled_|pipe_tensor|mem_shared|issue_active|==ERROR|==WARNING" \
        "$out/ncu-$1.txt" | awk '$NF != "0" && $NF != "0.00"' | cut -c1-150 | head -n 60
}
# sampled TAG DTYPE: the default and cuBLAS under sustained load (6 timings of 100 ms of calls each,
# CUTEC_BENCH_SPAN_MS=100), nvidia-smi sampling the SM clock, the power and the
# clock event reasons (power cap, thermal, ...) every 10 ms beside them (fields the driver lacks
# dropped; nvidia-smi -i the first of CUDA_VISIBLE_DEVICES, else GPU 0); the samples above 1000 MHz
# summed up
sampled()
{
    device_late "sampled $2" && return
    smi="$out/$1-smi.csv" q=clocks.sm,power.draw.instant,clocks_event_reasons.active
    gpu=${CUDA_VISIBLE_DEVICES:-0}
    gpu=${gpu%%,*}
    nvidia-smi -i "$gpu" --query-gpu=$q --format=csv,noheader,nounits >/dev/null 2>&1 || q=clocks.sm,power.draw
    nvidia-smi -i "$gpu" --query-gpu=$q --format=csv,noheader,nounits -lms 10 >"$smi" 2>&1 &
    pid=$!
    CUTEC_BENCH_SPAN_MS=100 timeout 20 build/cutec bench gemm --dtype "$2" --layout tn --variants tensorop_smem \
        --sizes 4096 --iters 6 2>&1 | grep -E "^ *[0-9]|SM clock"
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    awk -F', *' -v d="$2" -v q="$q" '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && $1 > 1000 { n++; c += $1; p += $2; if ($2 > pm) pm = $2
            if (!lo || $1 < lo) lo = $1; if (NF > 2) why[$3]++ }
        END { if (!n) { print d ": no samples (" NR " lines)"; exit }
              printf "%s: %d samples under load (%s): SM clock mean %.0f MHz, min %d; power mean %.0f W, max %.0f W", d, n, q,
                     c / n, lo, p / n, pm
              for (w in why) printf "; reasons %s x%d", w, why[w]
              print "" }' "$smi"
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== 1. each form on the GPU against float64 first (every element) $(el_s)"
        for f in "--raster 16" "--stages 4" "--layout tnt"; do
            # shellcheck disable=SC2086
            check "bf16 tn $f" --dtype bf16 --layout tn $f --m 1030 --n 777 --k 520 --alpha 2 --beta -1
        done
        check "f16 tn --stages 4 --raster 16" --dtype f16 --layout tn --stages 4 --raster 16 --m 515 --n 389 --k 263 \
            --alpha 2 --beta -1
        check "s8 tn --raster 16" --dtype s8 --layout tn --raster 16 --m 515 --n 389 --k 263 --alpha 3 --beta -2
        echo "== 2. bench mma $(el_s)"
        timeout 15 build/cutec bench mma --dtypes bf16,f16,s8 --iters 3 >"$out/mma.txt" 2>&1
        grep -E "^(bf16|f16|s8) " "$out/mma.txt"
        echo "== 3. two rounds: raster 8 (default), 16, 4, 32; 4 stages at raster 8, 16; f16 --fill coarse;"
        echo "   bf16 tnt (round 1) $(el_s)"
        for r in 1 2; do
            for d in bf16 f16; do
                bench ras "$r" "$d" --raster 8,16,4,32
                bench st4 "$r" "$d" --raster 8,16 --stages 4
            done
            bench coarse "$r" f16 --raster 8 --fill coarse
            [ "$r" = 1 ] && bench tnt "$r" bf16 --raster 8,16 --layout tnt
        done
        echo "== 4. f16 and bf16 under sustained load (100 ms spans), clock and power sampled $(el_s)"
        sampled pw-f16 f16
        sampled pw-bf16 bf16
        echo "== 5. ncu: one launch of the bf16 default at 4096^3 (clocks left alone) $(el_s)"
        profile bf16
        echo "== decisions $(el_s)"
        [ -s "$out/bad.txt" ] && echo "decides: nothing flips: a check on the GPU failed: $(tr '\n' ';' <"$out/bad.txt")"
        echo "ceilings: bf16 $(ceiling bf16), f16 $(ceiling f16) TFLOP/s, s8 $(ceiling s8) TOPS"
        for f in ras+r16 ras+r4 ras+r32; do decide bf16,f16 "$f"; done
        # 4 stages and C row-major: against the default of the round's raster process
        decide bf16,f16 st4+r8 ras+r8
        decide bf16,f16 st4+r16 ras+r8
        decide f16 coarse+r8 ras+r8
        awk '$1 ~ /^tnt/ || ($1 == "ras+r8" && $2 == "bf16" && $3 == 1) { printf "bf16 round 1 %s: %s TFLOP/s\n", $1, $4 }' "$rows"
        echo "the marks (the default, raster 8; issue 13: bf16 65% of cuBLAS, f16 80% of its ceiling):"
        for f in "$out"/ras-bf16-*.txt "$out"/ras-f16-*.txt; do
            [ -f "$f" ] || continue
            awk -v f="${f##*/}" -v cb="$(ceiling bf16)" -v cf="$(ceiling f16)" '$1 == 4096 && $2 == "cublas" { cu = $4 }
                $1 == 4096 && $2 == "tensorop_smemr8" { t = $4; ok = $NF }
                END { c = f ~ /bf16/ ? cb : cf; if (t && cu && c) printf "  %s: %.2f TFLOP/s (%s), %.2f%% of cuBLAS (%.1f), %.2f points of the ceiling\n", f, t, ok, 100 * t / cu, cu, 100 * t / c }' "$f"
        done
    else
        echo "== no GPU here: every GPU step skipped"
    fi
    device_end
} 2>&1 | tee "$log"
