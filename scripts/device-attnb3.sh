#!/bin/sh
# The Hopper attention backward, head dim 128 (issue 18 item 3; engineer attnb3).  First the
# backward's GPU tests (attention_bwd_test's GPU cases, which it runs first: the default, the
# fused and the atomic dQ against float64, the same bits on a second call; then its
# interpreter cases, which the time limit cuts: rc 124 once the GPU lines printed), then
# `cutec bench attention --bwd` d128, causal and not, SDPA's backward in the same process:
#   split    (the default) 8x16x4096: the dK/dV kernel's steps with FlashAttention 3's waits
#            (S^T and dP^T waited for apart, P beside dP^T's product, dS beside dV's);
#   serial   CUTEC_ATTN_BWD_STEPS=serial, 8x16x4096: session 29's steps (451.6 TFLOP/s =
#            89.2% of SDPA in its final pass), the baseline in the same run;
#   dqsplit  split and CUTEC_ATTN_BWD_DQSTEPS=split, 8x16x4096: the dQ kernel's scores as two
#            batches too (P while dP's product runs);
# then (PROFILE=1, the default) an Nsight Compute profile of the split dK/dV kernel at
# 8x16x4096 ($OUT/dkdv-split.txt, dkdv-split-sass.csv: the sampled stalls a SASS instruction,
# /work/device-prof29/top.py summarizes them), else the default at 2x16x16384, with what is
# left.
# Under 150 s on an H200; the build is expected done (make all tests).  Results in $OUT
# (default build/device-out).
. scripts/device-common.sh
log="$out/attnb3.log"
start=$(date +%s)
stamp() { echo "== $(date -u +%T) +$(($(date +%s) - start)) s: $*"; }
bench() { # SECONDS STEPS DQSTEPS ARGS: the bench under a time limit, line-buffered
    lim=$1 steps=$2 dqsteps=$3
    shift 3
    stamp "bench attention --bwd $* (CUTEC_ATTN_BWD_STEPS=$steps CUTEC_ATTN_BWD_DQSTEPS=$dqsteps)"
    CUTEC_ATTN_BWD_STEPS=$steps CUTEC_ATTN_BWD_DQSTEPS=$dqsteps timeout "$lim" stdbuf -oL -eL build/cutec bench \
        attention --bwd --headdim 128 --iters 10 "$@" 2>&1
}
profile_dkdv() { # SECONDS: ncu on the third dK/dV launch (scripts/device-prof29.sh's sections)
    command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
    stamp "ncu: the dK/dV kernel, 8x16x4096 d128 (split)"
    timeout "$1" ncu --clock-control none --kernel-name-base function --kernel-name 'regex:dkdv_kernel_[0-9]+$' \
        --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --section ComputeWorkloadAnalysis --section LaunchStats --section SourceCounters -f -o "$out/dkdv-split" \
        build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 3 \
        >"$out/dkdv-split.txt" 2>&1
    echo "rc $?"
    timeout 20 ncu --import "$out/dkdv-split.ncu-rep" --print-summary none >>"$out/dkdv-split.txt" 2>&1
    timeout 20 ncu --import "$out/dkdv-split.ncu-rep" --page source --csv --print-source sass \
        >"$out/dkdv-split-sass.csv" 2>&1
    grep -E "^  [a-z_0-9]+_kernel_|Duration|Compute \(SM\)|Issue Slots Busy|No Eligible" "$out/dkdv-split.txt" | head
    rm -f "$out/dkdv-split.ncu-rep"
}
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/kernels/attention/attention_bwd_test 2>&1 | grep -E "error|warning" | head -20
    stamp "attention_bwd_test: its GPU cases first (every element against float64, the same bits again), 36 s"
    timeout 36 stdbuf -oL -eL build/tests/kernels/attention/attention_bwd_test >"$out/attention_bwd_test.log" 2>&1
    echo "rc $? (124: the time limit, in its interpreter cases once the GPU ones printed)"
    grep -E "cuda|FAIL|differs|passed" "$out/attention_bwd_test.log" | cut -c1-300 | head -24
    bench 40 split overlap --batch 8 --heads 16 --seqlen 4096
    bench 28 serial overlap --batch 8 --heads 16 --seqlen 4096
    bench 28 split split --batch 8 --heads 16 --seqlen 4096
    left=$((146 - ($(date +%s) - start)))
    if [ "${PROFILE:-1}" = 1 ]; then
        [ "$left" -gt 12 ] && profile_dkdv $((left - 6))
    else
        [ "$left" -gt 8 ] && bench "$left" split overlap --batch 2 --heads 16 --seqlen 16384
    fi
    stamp "done"
} >"$log" 2>&1
tail -n 70 "$log"
