#!/bin/sh
# Issue 20's row-parallel GEMM on two GPUs of one host (CUDA_VISIBLE_DEVICES holds two),
# engineer tp40: the events schedule's default chunks halve toward the end (2048x2,1024x2,
# 512x4 at M 8192: the last owned chunk's copy back, which no GEMM hides, 8 MiB instead of 16)
# and C is column-major to its kernels.  The mid pass (2026-11-28 11:41, two H200s) ranked it
# first of 12 schedules in turns: 0.8445 of cuBLAS + NCCL (two processes), 8 equal chunks
# 0.859, fused C row-major 0.870; the mirrored tails and the fused schedule scattered by
# events measured slower and were deleted (bench/RESULTS.md tp40).  Here, in three processes
# (the order rotated), each 3 turns of cuBLAS GEMM + NCCL then every schedule:
#   events, C column-major, halving chunks (the default)
#   events, C column-major, 8 equal chunks (the best events schedule before)
#   events, C row-major, 8 equal chunks (the bench's default before)
#   fused, C row-major (the lead's first pass of this session: 0.856)
#   events, C column-major, 2048x2,1536x2,512x2 (6 chunks, fewer launches, the same 8 MiB last
#       copy; a candidate for the next session, not timed before)
# each turn's ms printed, the ranking over all turns, and "decides:" lines; then the GEMM alone
# on GPU 0 sustained over 100 ms spans (the floor).
#   tests: kernels/gemm/peer_gemm_test, comm/peer_test, comm/comm_test, cli/tp_test
# SM clock and power of both GPUs every 500 ms into $OUT/clocks.csv.  Under 120 s (each step
# under its timeout, skipped past BUDGET_S); logs in $OUT.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tp40: skipped: no GPU here"; exit 0; }
log="$out/tp40.log"
start=$(date +%s)
budget=${BUDGET_S:-85}
tp()
{
    if device_late tp-gemm "$@"; then return; fi
    echo "== cutec bench tp-gemm $* $(el_s)"
    timeout 30 stdbuf -oL -eL build/cutec bench tp-gemm --mode row --iters "${ITERS:-10}" "$@" 2>&1 |
        grep -v "^mode\|^row  \|^column  " | tee -a "$out/turns.txt"
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit --format=csv 2>&1
    TEST_TIMEOUT=40 device_tests kernels/gemm/peer_gemm_test comm/peer_test comm/comm_test cli/tp_test
    nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw --format=csv,noheader -lms 500 >"$out/clocks.csv" 2>&1 &
    smi=$!
    : >"$out/turns.txt"
    eq="--chunks 8"
    er="--c-major row --chunks 8"
    fu="--order fused"
    six="--chunk-rows 2048x2,1536x2,512x2"
    # shellcheck disable=SC2086
    tp --also "$eq" --also "$er" --also "$fu" --also "$six"
    # shellcheck disable=SC2086
    tp $eq --also "$er" --also "$six" --also "$fu" --also ""
    # shellcheck disable=SC2086
    tp $fu --also "$six" --also "" --also "$eq" --also "$er"
    if ! device_late gemm; then
        echo "== the GEMM alone on GPU 0, sustained (100 ms spans) $(el_s)"
        first=$(echo "${CUDA_VISIBLE_DEVICES:-0,1}" | cut -d, -f1)
        CUDA_VISIBLE_DEVICES=$first CUTEC_BENCH_SPAN_MS=100 timeout 20 build/cutec bench gemm --dtype bf16 \
            --layout tnt --variants hopper --sizes 8192 --iters 10 2>&1 | grep -E "^ *[0-9]|rror|refus"
    fi
    kill "$smi" 2>/dev/null
    echo "== each GPU under load (samples over 300 W): mean SM clock (MHz), mean and peak power (W)"
    for i in $(cut -d, -f2 "$out/clocks.csv" | tr -d " " | sort -u | grep -E "^[0-9]+$"); do
        awk -F', ' -v i=$i '$2 == i && $4 + 0 > 300 { n++; c += $3; p += $4; if ($4 + 0 > top) top = $4 + 0 }
            END { if (n) printf "GPU %s: %d samples, SM %d MHz, %.0f W, peak %.0f W\n", i, n, c / n, p / n, top }' "$out/clocks.csv"
    done
    echo "== the ranking (each schedule's mean ratio to cuBLAS+NCCL over the processes' medians)"
    # the turns' rows: "LABEL  ms  ratio  (turns: ...)  (model X)"
    grep "WRONG" "$out/turns.txt" | sed 's/^/decides: fix before anything: /'
    awk '/^in turns/ { on = 1; next } on && /^(events|fused|flags), / && !/WRONG/ {
             line = $0; sub(/  \(turns.*/, "", line); n = split(line, w, " "); r = w[n]; label = line;
             sub(/ +[0-9.]+ +[0-9.]+$/, "", label); sum[label] += r; cnt[label]++ }
         END { for (l in sum) printf "%.4f %d %s\n", sum[l] / cnt[l], cnt[l], l }' "$out/turns.txt" | sort -n >"$out/ranked.txt"
    cat "$out/ranked.txt"
    def="events, C column-major, chunks 2048x2,1024x2,512x4"
    base=$(grep " $def\$" "$out/ranked.txt" | cut -d' ' -f1)
    best=$(grep " events, " "$out/ranked.txt" | grep -v " $def\$" | head -n 1)
    if [ -z "$base" ] || [ -z "$best" ]; then
        echo "decides: nothing (no turns measured)"
    elif b=${best%% *} form=$(echo "$best" | cut -d' ' -f3-) &&
        awk -v b="$b" -v t="$base" 'BEGIN { exit !(b < t - 0.005) }'; then
        echo "decides: the events schedule's default becomes \"$form\" ($b against the halving chunks' $base)"
    else
        echo "decides: the halving chunks stay the events schedule's default ($base; best other events \"$form\" $b)"
    fi
    top=$(head -n 1 "$out/ranked.txt")
    [ -n "$top" ] && echo "decides: issue 20's row mark (<= 0.85 of cuBLAS+NCCL) $(awk -v x="${top%% *}" \
        'BEGIN { print (x <= 0.85 ? "met" : "not met") }') by the best schedule here: $(echo "$top" | cut -d' ' -f3-) ${top%% *}"
    device_end
} 2>&1 | tee "$log" | tail -n "${TAIL:-200}"
