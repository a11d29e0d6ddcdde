#!/bin/sh
# The Hopper bf16 GEMM's waves (issue 15 item 1, engineer hop20): stream-K whose whole tiles run
# the cooperative kernel's own code, against the library's kernels, at 4096^3 (512 tiles of
# 128 x 256 on 132 SMs: 3.88 waves), 8192^3 (15.5 waves) and 2048^3 (0.97: whole tiles only).
# About 60 s on one H200 after `make all tests` (the mid pass: 56 s with fewer steps).  Every
# bench row is checked before it is timed (sampled against float64, and against cuBLAS's
# elements), cuBLAS in the same process.
#   1. streamk_test's GPU cases (4096^3 with runs, 2048^3, odd sizes, an f32 C, a fused
#      epilogue): correct against float64 first.
#   2. 4096^3 and 8192^3 in one process: coop 1x1 (the library's at 4096^3), coop 2x1 (the
#      library's at 8192^3), stream-K 1x1 (sk; it takes no clusters: its 2x1 row says
#      unsupported), the whole tile's store; 4096^3 again (sk first, the two-buffer store too),
#      8192^3 again (sk first); the LLM shapes 8192 x {6144 x 4096, 4096 x 14336, 28672 x 4096};
#      2048^3, coop / sk, the whole tile and the two buffers (tma, the library's there).
#   The mid pass (H200, 16:56 UTC, % of cuBLAS): 4096^3 sk 94.2 / 94.2 against coop 99.4 /
#   99.4; 8192^3 sk 101.2 against coop 1x1 100.2, 2x1 100.4; 8192x6144x4096 98.7 against 99.2
#   (2x1); 2048^3 (no runs) 93.7 / 94.3 against 97.4 / 97.8: sk's loss there is outside the
#   tile loop, which is now coop's own.
# Decides (percent of cuBLAS in the same process; a point = 1% of cuBLAS):
#   a. 4096^3: sk-tile against coop-tile, the mean of both runs: sk ahead by 0.5 point or more
#      -> make stream-K the default for hopper_auto.c's last row (a stream-K row in its place); else keep opt-in (`--schedule streamk`).
#   b. 8192^3: sk 1x1 against the library's coop 2x1, the mean of both runs: ahead by 0.5 point
#      or more, and at the LLM shapes not behind on average -> stream-K for the 2x1 row too
#      (a stream-K row in its place); else keep opt-in.
#   c. 2048^3 (sk makes no runs there) decides nothing in the table; a note says whether sk's
#      whole tiles cost what coop's do.
# No step starts past BUDGET_S (default 66 s), each under its own timeout.
#   ITERS=10 sh scripts/device-hop20.sh   (log: $OUT/hop20.log, default build/device-out)
. scripts/device-common.sh
log="$out/hop20.log"
start=$(date +%s)
budget=${BUDGET_S:-66}
# pct SIZE ROW FILE: the % of cuBLAS of the first row named ROW at size SIZE ("" if none)
pct() { awk -v s="$1" -v r="$2" '$2 == s && $3 == r && $NF == "ok" { sub("%", "", $6); print $6; exit }' "$3"; }
# mean SIZE ROW1 FILE1 ROW2 FILE2: the mean of the two rows' % of cuBLAS (the one found; "" if none)
mean()
{
    awk -v a="$(pct "$1" "$2" "$3")" -v b="$(pct "$1" "$4" "$5")" \
        'BEGIN { if (a != "" && b != "") print (a + b) / 2; else if (a != "") print a; else if (b != "") print b }'
}
# decide NAME NEW OLD MIN YES NO: "decides: NAME: YES" where NEW - OLD >= MIN points, else NO
decide()
{
    if [ -z "$2" ] || [ -z "$3" ]; then echo "decides: $1: no figures (keep opt-in)"; return; fi
    awk -v n="$1" -v a="$2" -v b="$3" -v m="$4" -v y="$5" -v no="$6" 'BEGIN {
        d = a - b; r = no; if (d >= m) r = y
        printf("decides: %s: %.2f against %.2f%% of cuBLAS (%+.2f points): %s\n", n, a, b, d, r) }'
}
{
    gemm_gpu_head
    timeout 40 make -j16 build/cutec build/tests/kernels/gemm/streamk_test 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. stream-K on the GPU against float64"
    if [ "$budget" -ge 0 ]; then
        CUTEC_TEST_GPU_ONLY=1 timeout 20 build/tests/kernels/gemm/streamk_test >"$out/streamk_test.log" 2>&1
        echo "streamk_test (rc $?): $(tail -n 1 "$out/streamk_test.log")"
        grep -m 5 FAIL "$out/streamk_test.log" | cut -c1-400
    fi
    echo "== 2. coop 1x1 / coop 2x1 / sk, the whole tile; 4096^3 and 8192^3 again; the LLM shapes; 2048^3"
    # (a single value of --store or --cluster names no row: hopper1x1-sk, hopper-sk-tile)
    device_late squares || device_bench_bf16 40 4096,8192 --schedule coop,streamk --cluster 1x1,2x1 --store tile |
        stamp | quiet | tee "$out/squares.txt"
    device_late again || device_bench_bf16 14 4096 --schedule streamk,coop --store tile,tma | stamp | quiet |
        tee "$out/again.txt"
    device_late again8 || device_bench_bf16 20 8192 --schedule streamk,coop --cluster 1x1,2x1 --store tile |
        stamp | quiet | tee "$out/again8.txt"
    for s in 8192x6144x4096 8192x4096x14336 8192x28672x4096; do
        device_late "$s" || device_bench_bf16 20 $s --schedule coop,streamk --cluster 2x1,1x1 --store tile |
            stamp | quiet | tee -a "$out/llm.txt"
    done
    device_late 2048 || device_bench_bf16 12 2048 --schedule coop,streamk --store tile,tma | stamp | quiet |
        tee "$out/wave.txt"
    echo "== what decides"
    touch "$out/squares.txt" "$out/again.txt" "$out/again8.txt" "$out/llm.txt" "$out/wave.txt"
    sk=$(mean 4096 hopper1x1-sk "$out/squares.txt" hopper-sk-tile "$out/again.txt")
    co=$(mean 4096 hopper1x1-coop "$out/squares.txt" hopper-coop-tile "$out/again.txt")
    decide "4096^3 (the runs' mean), sk against coop" "$sk" "$co" 0.5 \
        "make default: a stream-K row for 4096^3 in hopper_auto.c" "keep opt-in (--schedule streamk)"
    sk=$(mean 8192 hopper1x1-sk "$out/squares.txt" hopper1x1-sk "$out/again8.txt")
    co=$(mean 8192 hopper2x1-coop "$out/squares.txt" hopper2x1-coop "$out/again8.txt")
    # b: and at the LLM shapes measured, sk 1x1 not behind coop 2x1 on average
    lead=$(awk '$NF == "ok" && $3 == "hopper1x1-sk" { s += $6; n++ } $NF == "ok" && $3 == "hopper2x1-coop" { c += $6; m++ }
        END { if (n && n == m) printf("%.2f", (s - c) / n) }' "$out/llm.txt")
    [ -n "$lead" ] && echo "the LLM shapes: sk 1x1 ahead of coop 2x1 by $lead points on average"
    if [ -n "$lead" ] && awk -v l="$lead" 'BEGIN { exit !(l < 0) }'; then
        echo "decides: 8192^3's row: keep opt-in (--schedule streamk): sk behind at the LLM shapes"
    else
        decide "8192^3 (the runs' mean), sk 1x1 against the library's coop 2x1" "$sk" "$co" 0.5 \
            "make default: a stream-K row in place of the 2x1 row in hopper_auto.c" "keep opt-in (--schedule streamk)"
    fi
    s=$(pct 2048 hopper-sk-tile "$out/wave.txt") c=$(pct 2048 hopper-coop-tile "$out/wave.txt")
    [ -n "$s" ] && [ -n "$c" ] && awk -v a="$s" -v b="$c" 'BEGIN { d = a - b; r = "sk still pays for something outside the tiles"
        if (d > -0.5) r = "the same code, the same time"
        printf("note: 2048^3 whole tiles, sk %.2f against coop %.2f%% of cuBLAS (%+.2f points): %s\n", a, b, d, r) }'
    device_end
} >"$log" 2>&1
cat "$log"
