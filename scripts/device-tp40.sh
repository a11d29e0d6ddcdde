#!/bin/sh
# Issue 20's row-parallel GEMM on two GPUs of one host (CUDA_VISIBLE_DEVICES holds two),
# engineer tp40: the events schedule's exposed tail.  Today's events schedule cuts C's rows
# into 8 equal chunks; the last owned chunk's copy back (16 MiB, ~56 us) is never hidden.
# The forms, each a bench option (`--chunk-rows`, `--tail`), timed in turns in one process
# with cuBLAS GEMM + NCCL (3 rounds, each the baseline then every schedule):
#   events 1024x8 (today), C column-major            the first schedule (the bench's parts too)
#   fused, C row-major                                 the lead's 0.856 of this session's first pass
#   fused, C row-major, scattered by events (`--scatter event`: the first GEMMs plain, an event
#       between them and the other's second GEMM, no flag a tile: the flags cost each tile of the
#       first GEMMs a wait for its remote stores to land before the release)
#   both fused with 2x1 clusters (`--cluster 2x1`: the lead's column-major fused led with it)
#   events 2048x2,1024x2,512x4 (halving: the last copy 8 MiB, one round of 128 tiles)
#   the same, tail mirrored (the last owned chunk's epilogue stores into the other's C: no copy)
#   events 1024x8 tail mirrored
#   events 2048x4 (4 equal chunks; ahead of 8 in this session's first pass, 0.881 / 0.893)
#   events with C row-major, 1024x8 and halving, copied and mirrored: the fused schedule led
#       row-major in this session's first pass (0.856 against 0.932 column-major), where
#       session 32 had it the other way round (0.965 / 0.943)
# twice (the second process in the reverse order), then the GEMM alone on GPU 0 sustained,
# then the fused schedules with TMA stores piece by piece in a third process (if in budget).
# The model's prediction (tp_model.c, fitted to the first schedule) is printed beside each.
# No NCCL runs inside any overlapped schedule (the copies are the copy engines'), so there
# is no channel cap to try (brief item 2; bench/RESULTS.md tp40).
#   tests: kernels/gemm/peer_gemm_test, comm/peer_test, comm/comm_test, cli/tp_test
# SM clock and power of both GPUs every 500 ms into $OUT/clocks.csv.  Under 120 s (each step
# under its timeout, skipped past BUDGET_S); logs in $OUT.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tp40: skipped: no GPU here"; exit 0; }
log="$out/tp40.log"
start=$(date +%s)
budget=${BUDGET_S:-85}
ev="--order events --c-major column"
halving="2048x2,1024x2,512x4"
tp()
{
    if device_late tp-gemm "$@"; then return; fi
    echo "== cutec bench tp-gemm $* $(el_s)"
    timeout 35 stdbuf -oL -eL build/cutec bench tp-gemm --mode row --iters "${ITERS:-10}" "$@" 2>&1 |
        grep -v "^mode\|^row  \|^column  " | tee -a "$out/turns.txt"
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit --format=csv 2>&1
    TEST_TIMEOUT=40 device_tests kernels/gemm/peer_gemm_test comm/peer_test comm/comm_test cli/tp_test
    nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw --format=csv,noheader -lms 500 >"$out/clocks.csv" 2>&1 &
    smi=$!
    : >"$out/turns.txt"
    fu="--order fused"
    er="--order events --c-major row"
    # shellcheck disable=SC2086
    tp $ev --chunks 8 --also "$er --chunks 8" --also "$fu" --also "$fu --scatter event" --also "$fu --cluster 2x1" \
        --also "$fu --scatter event --cluster 2x1" --also "$ev --chunk-rows $halving" \
        --also "$ev --chunk-rows $halving --tail mirror" --also "$ev --chunks 8 --tail mirror" \
        --also "$er --chunk-rows $halving" --also "$er --chunk-rows $halving --tail mirror" --also "$ev --chunks 4"
    # shellcheck disable=SC2086
    tp $ev --chunks 8 --also "$ev --chunks 4" --also "$er --chunk-rows $halving --tail mirror" \
        --also "$er --chunk-rows $halving" --also "$ev --chunks 8 --tail mirror" \
        --also "$ev --chunk-rows $halving --tail mirror" --also "$ev --chunk-rows $halving" \
        --also "$fu --scatter event --cluster 2x1" --also "$fu --cluster 2x1" --also "$fu --scatter event" \
        --also "$fu" --also "$er --chunks 8"
    if ! device_late gemm; then
        echo "== the GEMM alone on GPU 0, sustained (100 ms spans) $(el_s)"
        first=$(echo "${CUDA_VISIBLE_DEVICES:-0,1}" | cut -d, -f1)
        CUDA_VISIBLE_DEVICES=$first CUTEC_BENCH_SPAN_MS=100 timeout 20 build/cutec bench gemm --dtype bf16 \
            --layout tnt --variants hopper --sizes 8192 --iters 10 2>&1 | grep -E "^ *[0-9]|rror|refus"
    fi
    # the fused schedule's stores piece by piece (two buffers a warpgroup, `--store tma`), with
    # and without the cluster and the event (tp20: 2x1 piece stores 1.702 against 1.732 whole)
    # shellcheck disable=SC2086
    tp $fu --also "$fu --store tma" --also "$fu --cluster 2x1 --store tma" --also "$fu --scatter event --store tma" \
        --also "$fu --scatter event --cluster 2x1 --store tma"
    kill "$smi" 2>/dev/null
    echo "== each GPU under load (samples over 300 W): mean SM clock (MHz), mean and peak power (W)"
    for i in $(cut -d, -f2 "$out/clocks.csv" | tr -d " " | sort -u | grep -E "^[0-9]+$"); do
        awk -F', ' -v i=$i '$2 == i && $4 + 0 > 300 { n++; c += $3; p += $4; if ($4 + 0 > top) top = $4 + 0 }
            END { if (n) printf "GPU %s: %d samples, SM %d MHz, %.0f W, peak %.0f W\n", i, n, c / n, p / n, top }' "$out/clocks.csv"
    done
    echo "== the decisions (each form's ratio to cuBLAS+NCCL in the turns of both processes)"
    # the turns' rows: "LABEL  ms  ratio  (model X)"; a form's mean ratio over the processes
    grep "WRONG" "$out/turns.txt" | sed 's/^/decides: fix before anything: /'
    awk '/^in turns/ { on = 1; next } on && /^(events|fused|flags), / && !/WRONG/ {
             line = $0; sub(/  \(model.*/, "", line); n = split(line, w, " "); r = w[n]; label = line;
             sub(/ +[0-9.]+ +[0-9.]+$/, "", label); sum[label] += r; cnt[label]++ }
         END { for (l in sum) printf "%.4f %d %s\n", sum[l] / cnt[l], cnt[l], l }' "$out/turns.txt" | sort -n >"$out/ranked.txt"
    cat "$out/ranked.txt"
    # decide KIND BASE: the best form of KIND ("events" or "fused") against BASE's row
    decide()
    {
        base=$(grep " $2\$" "$out/ranked.txt" | cut -d' ' -f1)
        best=$(grep " $1, " "$out/ranked.txt" | head -n 1)
        [ -n "$base" ] && [ -n "$best" ] || { echo "decides: nothing for $1 (no turns measured)"; return; }
        b=${best%% *} form=$(echo "$best" | cut -d' ' -f3-)
        if [ "$form" != "$2" ] && awk -v b="$b" -v t="$base" 'BEGIN { exit !(b < t - 0.005) }'; then
            echo "decides: the $1 schedule's default becomes \"$form\" ($b against \"$2\" $base)"
        else
            echo "decides: the $1 schedule keeps \"$2\" ($base; best other \"$form\" $b, not 0.005 ahead): its new forms are deleted"
        fi
    }
    decide events "events, C column-major, chunks 1024x8"
    decide fused "fused, C row-major"
    top=$(head -n 1 "$out/ranked.txt")
    [ -n "$top" ] && echo "decides: issue 20's row mark (<= 0.85 of cuBLAS+NCCL) $(awk -v x="${top%% *}" \
        'BEGIN { print (x <= 0.85 ? "met" : "not met") }') by the best schedule here: $(echo "$top" | cut -d' ' -f3-) ${top%% *}"
    device_end
} 2>&1 | tee "$log" | tail -n "${TAIL:-200}"
