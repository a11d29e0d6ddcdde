#!/bin/sh
# The lead's first pass of session 38 (about 300 s on one H200 after `make all tests`; log
# $OUT/lead38.log): the items of the open issues that had no figure on the GPU, or none since
# the code under them changed (a status survey of bench/RESULTS.md, session 38):
#  1. issue 17's skinny shapes (scripts/device-skinny.sh: M = 1..128 at N = K = 8192, 4097x3x8191,
#     3x5x100000, bf16 and f32, through cutec_gemm; the GEMV with vectors beside a device copy;
#     torch.mm in the same session);
#  2. issue 15's f16 shapes never timed (2048^3, 8192x8192x1024, the three LLM shapes) beside cuBLAS;
#  3. issue 15's epilogue costs at 8192^3 bf16: beta 1 (a residual add), alpha 1.5 beta 0.5, bias
#     (timed before, a reference point), and e4m3 per-tensor with and without --amax, each against
#     the plain GEMM in the same process;
#  4. issue 18's backward at d128, 8x16x4096 and 2x16x16384, SDPA's backward in the same run;
#  5. issue 16's backward rows at 16384x4096 (LayerNorm, RMSNorm), the copy beside.
# Every figure comes from a bench that checks against float64 (or cuBLAS/SDPA) first.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead38: skipped: no GPU here"; exit 0; }
log="$out/lead38.log"
start=$(date +%s) budget=${BUDGET_S:-330} iters=20
{
    device_head
    echo "== 1. skinny $(el_s)"
    sh scripts/device-skinny.sh 2>&1 | sed 's/^/   /'
    echo "== 2. f16 at issue 15's shapes $(el_s)"
    device_late "f16" || timeout 80 stdbuf -oL build/cutec bench gemm --dtype f16 --layout tn --variants hopper --iters 20 \
        --sizes 2048,4096,8192,8192x8192x1024,8192x28672x4096,8192x4096x14336,8192x6144x4096 2>&1
    echo "== 3. epilogue costs at 8192^3 bf16 (ours against ours plain, cuBLAS beside) $(el_s)"
    for e in "" "--beta 1" "--alpha 1.5 --beta 0.5" "--epilogue bias" ""; do
        device_late "epilogue $e" && continue
        echo "-- [$e]"
        # shellcheck disable=SC2086
        timeout 30 build/cutec bench gemm --dtype bf16 --layout tn --variants hopper --iters 30 --sizes 8192 $e 2>&1 | tail -n 2
    done
    for e in "" "--amax" ""; do
        device_late "fp8 $e" && continue
        echo "-- [e4m3 per-tensor $e]"
        # shellcheck disable=SC2086
        timeout 40 build/cutec bench gemm --dtype e4m3 --out-dtype bf16 --layout tn --variants hopper --scale tensor $e \
            --iters 30 --sizes 8192 2>&1 | tail -n 3
    done
    echo "== 4. attention backward d128 beside SDPA's $(el_s)"
    for s in "--batch 8 --heads 16 --seqlen 4096" "--batch 2 --heads 16 --seqlen 16384"; do
        device_late "bwd $s" && continue
        # shellcheck disable=SC2086
        timeout 90 build/cutec bench attention --bwd --headdim 128 $s --iters 10 2>&1 | tail -n 6
    done
    echo "== 5. backward rows at 16384x4096 $(el_s)"
    for r in layernorm rmsnorm; do
        device_late "$r bwd" && continue
        timeout 40 build/cutec bench $r --dtype bf16 --shape 16384x4096 --backward --iters 50 2>&1 | tail -n 4
    done
    echo "== done $(el_s)"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
cat "$log"
