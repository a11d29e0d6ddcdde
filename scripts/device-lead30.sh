#!/bin/sh
# The lead's pass of session 30: the plain row reductions (cutec_reduce_rows: sum, mean, amax,
# amin, prod over the last dimension) on the GPU, checked against float64 (reduce_test runs on
# the interpreter; here `cutec run` at odd and long rows), then `cutec bench` beside a device
# copy and torch.sum / amax / prod (bench/torch_rows.py) at the three row shapes.
# Under 150 s on an H200 after `make all tests`; log $OUT/lead30.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead30: skipped: no GPU here"; exit 0; }
log="$out/lead30.log"
start=$(date +%s)
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    echo "== checked runs $(el_s)"
    for op in sum mean amax amin prod; do
        for shape in 37x3001 5x1 3x70001 2x262147; do
            timeout 30 build/cutec run $op --shape $shape --dtype bf16 --iters 3 2>&1 | tail -n 2
        done
    done
    timeout 30 build/cutec run sum --shape 1000x4096 --dtype f32 --iters 3 2>&1 | tail -n 2
    timeout 30 build/cutec run amax --shape 1000x4096 --dtype f16 --iters 3 2>&1 | tail -n 2
    for op in sum amax prod; do
        echo "== cutec bench $op (bf16) $(el_s)"
        timeout 40 stdbuf -oL -eL build/cutec bench $op --dtype bf16 --iters 20 2>&1
    done
    echo "== cutec bench sum (f32) $(el_s)"
    timeout 40 stdbuf -oL -eL build/cutec bench sum --dtype f32 --iters 20 2>&1
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
