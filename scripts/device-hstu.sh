#!/bin/sh
# Engineer hstu (session 31): HSTU attention (cutec/hstu.h; CuTe DSL's ampere/hstu_attention.py),
# written without a GPU: nothing here has run on one yet.  O = silu(Q K^T + RAB) V, causal
# or not, on the SM80 forward's machinery (8 warps of 16 rows, 128x64 tiles, RAB's next tile
# loaded into registers under P V).  Within 150 s on an H200; each step under its own
# timeout, started only while the run is inside its budget (BUDGET_S, default 140);
# output line-buffered, most important first:
#   1. hstu_test on the GPU (its moderate cases against float64; the interpreter's too);
#   2. `cutec run hstu` against float64 at odd sizes (Sq != Sk, partial tiles, f16, fast);
#   3. `cutec bench hstu` at the example's shape (B 4, H 4, Sq = Sk 8192, D 128), causal and
#      not, PyTorch's unfused form beside (bench/torch_hstu.py): the exact sigmoid (the
#      default), then --fast-sigmoid (the option: default if faster, else deleted), then
#      CUTEC_HSTU_BLOCK_M=64 (64-row tiles of 4 warps, two blocks an SM, against the
#      default's 128 rows of 8 warps, one block an SM: the faster becomes the default);
#   4. where time is left, head dim 64 (16x4x4096: the exact sigmoid's MUFU time about 2/3 of
#      the MMAs' by the prediction, so the fast one should gain most here) exact and fast, and
#      ptxas's registers and spills (sm_90a) of the d128 forms.
# Prediction (bench/RESULTS.md, hstu's section): 550 GFLOP non-causal; RAB 2 GiB read once
# (0.5 ms at 4.3 TB/s) is under the MMAs' time (1.5-1.8 ms at the SM80 forward's 300-360
# TFLOP/s): compute-bound at d128, MUFU the next limit with the exact sigmoid (two a score).
# Logs under $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/hstu.log"
t0=$(date +%s)
budget=${BUDGET_S:-140}
iters=${ITERS:-5}
shape="--batch 4 --heads 4 --seqlen 8192 --headdim 128"
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 build/cutec build/tests/kernels/attention/hstu_test 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. hstu_test (GPU cases at moderate sizes against float64)"
    device_step 40 build/tests/kernels/attention/hstu_test >"$out/hstu_test.log" 2>&1
    echo "hstu_test: $(tail -n 1 "$out/hstu_test.log")"
    grep -m 5 FAIL "$out/hstu_test.log" | cut -c1-400
    echo "== 2. cutec run hstu on the GPU against float64 (0 wrong)"
    device_step 10 build/cutec run hstu --batch 2 --heads 4 --seqlen 1000 --headdim 128 --causal
    device_step 10 build/cutec run hstu --batch 3 --heads 2 --seqlen 777 --seqlen-k 1025 --headdim 64 --dtype f16 \
        --fast-sigmoid
    device_step 10 build/cutec run hstu --batch 1 --heads 3 --seqlen 1500 --seqlen-k 1531 --headdim 64 --causal \
        --fast-sigmoid
    device_step 10 env CUTEC_HSTU_BLOCK_M=64 build/cutec run hstu --batch 2 --heads 4 --seqlen 1000 --seqlen-k 1100 \
        --headdim 128 --causal
    echo "== 3. the example's shape 4x4x8192 d128, torch's unfused form beside: exact sigmoid, fast, 64-row tiles"
    # shellcheck disable=SC2086
    device_step 40 build/cutec bench hstu $shape --iters "$iters"
    # shellcheck disable=SC2086
    device_step 35 env CUTEC_TORCH_HSTU=/dev/null build/cutec bench hstu $shape --fast-sigmoid --iters "$iters"
    # shellcheck disable=SC2086
    device_step 35 env CUTEC_TORCH_HSTU=/dev/null CUTEC_HSTU_BLOCK_M=64 build/cutec bench hstu $shape --iters "$iters"
    echo "== 4. head dim 64 (16x4x4096), exact then fast; ptxas (sm_90a) of the d128 forms"
    device_step 20 build/cutec bench hstu --batch 16 --heads 4 --seqlen 4096 --headdim 64 --iters "$iters"
    device_step 20 env CUTEC_TORCH_HSTU=/dev/null build/cutec bench hstu --batch 16 --heads 4 --seqlen 4096 \
        --headdim 64 --fast-sigmoid --iters "$iters"
    for f in "" "--causal" "--fast-sigmoid" "--causal --fast-sigmoid"; do
        # shellcheck disable=SC2086
        echo "d128 $f: $(timeout 20 build/cutec compile hstu --headdim 128 $f --arch sm_90a --emit usage 2>&1 |
            grep -E "spill|Used" | tr -s ' ' | tr '\n' ' ')"
    done
    echo "d128 causal m64: $(CUTEC_HSTU_BLOCK_M=64 timeout 20 build/cutec compile hstu --headdim 128 --causal \
        --arch sm_90a --emit usage 2>&1 | grep -E "spill|Used" | tr -s ' ' | tr '\n' ' ')"
    device_stamp "done; clocks after: $(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 |
        tr '\n' ' ')"
} >"$log" 2>&1
tail -n 60 "$log"
