#!/bin/sh
# The lead's work of session 31 for the next GPU pass (session 31 had no device time):
# reductions over the first dimension (cutec_reduce_cols: torch.sum(x, 0) and the others) on
# the GPU against float64 at odd shapes (one launch, row splits with a second pass, ragged
# tiles), then `cutec bench ... --dim 0` beside a device copy and torch.sum|amax|prod(x, 0)
# (bench/torch_rows.py dim0) at the three row shapes.  Prediction: a read-only stream like
# the row reductions, 100-106% of the copy (the f32 partials of the splits are under 1% of the
# bytes).  Under 150 s on an H200 after `make all tests`; log $OUT/lead31.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead31: skipped: no GPU here"; exit 0; }
log="$out/lead31.log"
start=$(date +%s)
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv 2>&1
    echo "== checked runs over dim 0 $(el_s)"
    for op in sum mean amax amin prod; do
        for shape in 3001x37 5x1 70001x3 262147x2 1000x4100 17x100003; do
            timeout 30 build/cutec run $op --dim 0 --shape $shape --dtype bf16 --iters 3 2>&1 | tail -n 1
        done
    done
    timeout 30 build/cutec run sum --dim 0 --shape 100000x4096 --dtype f32 --iters 3 2>&1 | tail -n 1
    timeout 30 build/cutec run amax --dim 0 --shape 4096x1000 --dtype f16 --iters 3 2>&1 | tail -n 1
    for op in sum amax prod; do
        echo "== cutec bench $op --dim 0 (bf16) $(el_s)"
        timeout 40 stdbuf -oL -eL build/cutec bench $op --dim 0 --dtype bf16 --iters 20 2>&1
    done
    echo "== cutec bench sum --dim 0 (f32) $(el_s)"
    timeout 40 stdbuf -oL -eL build/cutec bench sum --dim 0 --dtype f32 --iters 20 2>&1
    echo "== ptxas (sm_90a) $(el_s)"
    build/cutec compile sum --dim 0 --shape 16384x4096 --emit usage --arch sm_90a 2>&1 | grep -E "spill|Used"
    echo "== done $(el_s)"
} >"$log" 2>&1
cat "$log"
