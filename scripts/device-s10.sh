#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# Engineer s10 (session 30): issue 18's SM80 attention forward (350 TFLOP/s at d128 8x16x4096).
# What changed: the K/V/Q cp.async copy (4 threads a row, a 16-byte piece of every 64 bytes
# each: whole sectors, 4 shared wavefronts an instruction, no spills; the default) and
# FlashAttention 4's lazy rescale of O (CUTEC_ATTN_SM80_RESCALE=lazy, an option).
# Within 150 s on an H200; each step under its own timeout and started only while the run is
# inside its budget (BUDGET_S, default 140); output line-buffered:
#   1. the SM80 forward against float64 on the GPU at odd sizes: GQA causal d128, d64 f16,
#      and the lazy rescale at scale 40 (its move taken after the first tile, exp2
#      overflowing if it were skipped) and causal;
#   2. `cutec bench attention --variant sm80` d128 8x16x4096, causal and not, SDPA beside:
#      the default (the copy's change alone against session 29's 318.2 / 283.3), then
#      CUTEC_ATTN_SM80_RESCALE=lazy;
#   3. ptxas's registers and spills (sm_90a) of both;
#   4. Nsight Compute on the default kernel (non-causal): registers, local-memory spill
#      requests, shared wavefronts, issue slots, stalls (s10-ncu.txt, s10-ncu-top.txt);
#   5. where time is left, two K/V stages (--kv-stages 2) with the new copy.
# Logs under $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/s10.log"
t0=$(date +%s)
budget=${BUDGET_S:-140}
iters=${ITERS:-5}
shape="--variant sm80 --batch 8 --heads 16 --seqlen 4096 --headdim 128"
{
    device_stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 build/cutec 2>&1 | grep -E "error|warning" | head -20
    echo "== 1. the SM80 forward on the GPU against float64 (0 wrong)"
    device_step 10 build/cutec run attention --variant sm80 --batch 2 --heads 6 --kv-heads 2 --seqlen 1000 --headdim 128 --causal
    device_step 10 build/cutec run attention --variant sm80 --batch 3 --heads 4 --seqlen 777 --headdim 64 --dtype f16
    device_step 10 env CUTEC_ATTN_SM80_RESCALE=lazy build/cutec run attention --variant sm80 --batch 2 --heads 4 \
        --kv-heads 2 --seqlen 1500 --headdim 128 --scale 40
    device_step 10 env CUTEC_ATTN_SM80_RESCALE=lazy build/cutec run attention --variant sm80 --batch 2 --heads 6 \
        --kv-heads 2 --seqlen 1000 --headdim 128 --causal
    echo "== 2. SM80 attention d128 8x16x4096 (SDPA beside): the default (every-tile rescale), then lazy"
    echo "==    (session 29 final: 318.2, causal 283.3)"
    # shellcheck disable=SC2086
    device_step 26 build/cutec bench attention $shape --iters "$iters"
    # shellcheck disable=SC2086
    device_step 26 env CUTEC_ATTN_SM80_RESCALE=lazy build/cutec bench attention $shape --iters "$iters"
    echo "== 3. ptxas (sm_90a): every tile, lazy"
    for r in always lazy; do
        echo "$r: $(CUTEC_ATTN_SM80_RESCALE=$r timeout 20 build/cutec compile attention --variant sm80 --headdim 128 \
            --arch sm_90a --emit usage 2>&1 | grep -E "spill|Used" | tr -s ' ' | tr '\n' ' ')"
    done
    command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
    if [ $(($(date +%s) - t0 + 45)) -gt "$budget" ] || ! command -v ncu >/dev/null; then
        echo "== skipped (time or no ncu): 4. the profile"
    else
        device_stamp "4. ncu on the default kernel (the third launch: non-causal)"
        # shellcheck disable=SC2086
        CUTEC_TORCH_ATTENTION=/dev/null timeout 45 ncu --clock-control none --kernel-name-base function \
            --kernel-name 'regex:_kernel_[0-9]+$' --launch-skip 2 --launch-count 1 --section SpeedOfLight \
            --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
            --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section SourceCounters \
            -f -o "$out/s10-ncu" build/cutec bench attention $shape --iters 3 >"$out/s10-ncu.txt" 2>&1
        echo "ncu rc $?"
        timeout 15 ncu --import "$out/s10-ncu.ncu-rep" --print-summary none >>"$out/s10-ncu.txt" 2>&1
        timeout 15 ncu --import "$out/s10-ncu.ncu-rep" --page source --csv --print-source sass \
            >"$out/s10-ncu-sass.csv" 2>&1
        grep -E "Duration|Throughput|Registers Per|Spilling Requests|Issue Slots Busy|excessive|Achieved Occ" \
            "$out/s10-ncu.txt" | head -30
        [ -f scripts/ncu_top.py ] && timeout 10 python3 scripts/ncu_top.py "$out/s10-ncu-sass.csv" 20 \
            >"$out/s10-ncu-top.txt" 2>&1 && head -n 24 "$out/s10-ncu-top.txt"
        rm -f "$out/s10-ncu.ncu-rep"
    fi
    echo "== 5. if time is left: two K/V stages (--kv-stages 2) with the new copy (session 29: 308.2, 277.2)"
    # shellcheck disable=SC2086
    device_step 24 build/cutec bench attention $shape --kv-stages 2 --iters "$iters"
    device_stamp "done; clocks after: $(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tr '\n' ' ')"
} >"$log" 2>&1
tail -n 80 "$log"
