#!/bin/sh
# HISTORICAL (session 32): some forms this script times were measured and removed since (their
# environment variables or flags are gone); run now it times the default in their place.
# bench/RESULTS.md keeps what it measured.
# The Hopper attention backward, head dim 128 (issue 18 item 3; engineer attnb3).  First the
# backward's GPU tests (attention_bwd_test's GPU cases, which it runs first: the default, the
# fused and the atomic dQ against float64, the same bits on a second call; then its
# interpreter cases, which the time limit cuts: rc 124 once the GPU lines printed), then
# `cutec bench attention --bwd` d128, causal and not, SDPA's backward in the same process:
#   default  8x16x4096: the dK/dV kernel's serial steps, the dQ kernel's scores as two batches
#            (the mid pass of session 30: serial steps with one batch 479.2 TFLOP/s = 93.3%
#            of SDPA, split dK/dV steps with two batches 457.7, with one 433.2);
#   joint    CUTEC_ATTN_BWD_DQSTEPS=joint, 8x16x4096: session 29's steps, the baseline in the
#            same run;
# then the default at 2x16x16384 with what is left (or with PROFILE=1 an Nsight Compute
# profile of the dK/dV kernel at 8x16x4096: $OUT/dkdv.txt, dkdv-sass.csv, the sampled stalls a
# SASS instruction, which /work/device-prof29/top.py summarizes).
# Under 150 s on an H200; the build is expected done (make all tests).  Results in $OUT
# (default build/device-out).
. scripts/device-common.sh
log="$out/attnb3.log"
start=$(date +%s)
stamp() { echo "== $(date -u +%T) +$(($(date +%s) - start)) s: $*"; }
bench() { # SECONDS DQSTEPS ARGS: the bench under a time limit, line-buffered
    lim=$1 dqsteps=$2
    shift 2
    stamp "bench attention --bwd $* (CUTEC_ATTN_BWD_DQSTEPS=$dqsteps)"
    CUTEC_ATTN_BWD_DQSTEPS=$dqsteps timeout "$lim" stdbuf -oL -eL build/cutec bench attention --bwd \
        --headdim 128 --iters 10 "$@" 2>&1
}
profile_dkdv() { # SECONDS: ncu on the third dK/dV launch (scripts/device-prof29.sh's sections)
    command -v ncu >/dev/null || PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1)
    stamp "ncu: the dK/dV kernel, 8x16x4096 d128"
    timeout "$1" ncu --clock-control none --kernel-name-base function --kernel-name 'regex:dkdv_kernel_[0-9]+$' \
        --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --section ComputeWorkloadAnalysis --section LaunchStats --section SourceCounters -f -o "$out/dkdv" \
        build/cutec bench attention --bwd --batch 8 --heads 16 --seqlen 4096 --headdim 128 --iters 3 \
        >"$out/dkdv.txt" 2>&1
    echo "rc $?"
    timeout 20 ncu --import "$out/dkdv.ncu-rep" --print-summary none >>"$out/dkdv.txt" 2>&1
    timeout 20 ncu --import "$out/dkdv.ncu-rep" --page source --csv --print-source sass \
        >"$out/dkdv-sass.csv" 2>&1
    grep -E "^  [a-z_0-9]+_kernel_|Duration|Compute \(SM\)|Issue Slots Busy|No Eligible" "$out/dkdv.txt" | head
    rm -f "$out/dkdv.ncu-rep"
}
{
    stamp "$(date -u +%F) $(git log --oneline -1 2>/dev/null | cut -c1-100)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    make -j16 all build/tests/kernels/attention/attention_bwd_test 2>&1 | grep -E "error|warning" | head -20
    stamp "attention_bwd_test: its GPU cases first (every element against float64, the same bits again), 36 s"
    timeout 36 stdbuf -oL -eL build/tests/kernels/attention/attention_bwd_test >"$out/attention_bwd_test.log" 2>&1
    echo "rc $? (124: the time limit, in its interpreter cases once the GPU ones printed)"
    grep -E "cuda|FAIL|differs|passed" "$out/attention_bwd_test.log" | cut -c1-300 | head -24
    bench 40 split --batch 8 --heads 16 --seqlen 4096
    bench 28 joint --batch 8 --heads 16 --seqlen 4096
    left=$((146 - ($(date +%s) - start)))
    if [ "${PROFILE:-0}" = 1 ]; then
        [ "$left" -gt 12 ] && profile_dkdv $((left - 6))
    else
        [ "$left" -gt 8 ] && bench "$left" split --batch 2 --heads 16 --seqlen 16384
    fi
    stamp "done"
} >"$log" 2>&1
tail -n 70 "$log"
