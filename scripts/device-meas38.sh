#!/bin/sh
# meas38's pass: issue 15's measurements that had no figure (about 100 s on one H200 after
# `make all tests`; log $OUT/meas38.log):
#  1. bf16 4096^3 and 8192^3 beside cuBLAS with the "of ceiling" column: `--ceiling auto`
#     measures `cutec bench mma`'s wgmma bf16 row first in the same process; what that costs
#     in seconds decides whether it is on by default;
#  2. the grouped GEMM, 8 and 64 groups at N = K = 4096 (tokens 512), beside the loop of cuBLAS
#     calls and torch._grouped_mm (bench/torch_grouped.py) on the same group sizes, with the
#     ceiling of step 1;
#  3. the epilogue costs at 8192^3 (bf16 beta 1, alpha 1.5 beta 0.5, bias; e4m3 --amax against
#     e4m3 plain), each against the plain GEMM in turns in one process (--epilogue-cost), the
#     SM clock beside each timing: the cost in time and in cycles (time x clock); e4m3's rows
#     of its own ceiling (`--ceiling auto`: the wgmma e4m3 row).
# Every figure comes from a bench that checks against float64 first (and the cuBLAS rows,
# torch's result, amax against C).
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-meas38: skipped: no GPU here"; exit 0; }
log="$out/meas38.log"
start=$(date +%s) budget=${BUDGET_S:-120}
rounds=${ROUNDS:-20}
rm -f "$out/meas38-costs.txt"
# run_bench SECONDS ARGS: `cutec bench gemm ARGS`, line-buffered (a time limit keeps what it printed)
run_bench() { t=$1; shift; timeout "$t" stdbuf -oL -eL build/cutec bench gemm "$@" 2>&1; }
{
    device_head
    echo "== 1. bf16 beside cuBLAS, of the ceiling measured first $(el_s)"
    run_bench 60 --dtype bf16 --layout tn --variants hopper --iters 20 --sizes 4096,8192 --ceiling auto |
        tee "$out/meas38-ceiling.txt" | grep -vE "^# (index|check|  \(allowed)"
    ceiling=$(sed -n 's/^# ceiling: \([0-9.]*\) .*/\1/p' "$out/meas38-ceiling.txt")
    cost=$(sed -n 's/^# ceiling: .*it took \([0-9.]*\) s).*/\1/p' "$out/meas38-ceiling.txt")
    if [ -n "$cost" ]; then
        awk -v c="$cost" 'BEGIN { if (c < 0.5) printf("decides: --ceiling auto costs %.2f s (under 0.5): on by default (CEILING_BY_DEFAULT in src/cli/gemm_cmd.c)\n", c)
                                  else printf("decides: --ceiling auto costs %.2f s (0.5 or more): stays opt-in\n", c) }'
    else
        echo "decides: no ceiling measured (see above): --ceiling auto stays opt-in"
    fi
    echo "== 2. grouped, N = K = 4096, tokens 512: the cuBLAS loop, torch._grouped_mm $(el_s)"
    for g in 8 64; do
        device_late "groups $g" && continue
        run_bench 60 --dtype bf16 --groups "$g" --tokens 512 --sizes 4096 --iters 20 --seed 38 \
            ${ceiling:+--ceiling "$ceiling"} | tee "$out/meas38-groups$g.txt"
        sed -n "s/^4096 *4096 *$g .* grouped .*ok vs float64 (sampled); \(.*\)/figure: $g groups: grouped \1/p" \
            "$out/meas38-groups$g.txt"
    done
    echo "== 3. epilogue costs at 8192^3, each in turns with the plain GEMM, $rounds rounds $(el_s)"
    for e in "--beta 1" "--alpha 1.5 --beta 0.5" "--epilogue bias"; do
        device_late "cost $e" && continue
        echo "-- bf16 $e"
        # shellcheck disable=SC2086
        run_bench 40 --dtype bf16 --layout tn --variants hopper --iters "$rounds" --sizes 8192 --epilogue-cost $e \
            ${ceiling:+--ceiling "$ceiling"} | grep -E "^8192|^cost|rror|WRONG|unsupported" | tee -a "$out/meas38-costs.txt"
    done
    if ! device_late "cost e4m3 --amax"; then
        echo "-- e4m3 per-tensor, --amax against plain"
        run_bench 40 --dtype e4m3 --out-dtype bf16 --layout tn --variants hopper --scale tensor --amax --iters "$rounds" \
            --sizes 8192 --epilogue-cost --ceiling auto | grep -E "^8192|^cost|^# ceiling|rror|WRONG|unsupported" |
            tee -a "$out/meas38-costs.txt"
    fi
    grep "^cost" "$out/meas38-costs.txt" 2>/dev/null | awk '{
        t = $6; c = $8; sub(/%,?/, "", t); sub(/%,?/, "", c); worst = (c != "-" && c + 0 > t + 0) ? c + 0 : t + 0
        printf("decides: %s at 8192^3 costs %s%% in time, %s%% in cycles: %s\n", $2, t, c,
               worst < 3 ? "under 3% (issue 15 met)" : "3% or more (issue 15 not met: the epilogue'"'"'s owner to look at)") }'
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
