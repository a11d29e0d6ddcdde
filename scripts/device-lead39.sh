#!/bin/sh
# The lead's first pass of session 39 (about 200 s on one H200 after `make all tests`; log
# $OUT/lead39.log):
#  1. issue 18: d256 2x16x16384 read 647.0 TFLOP/s in session 38 against 686-735 in sessions
#     26-33; session 34 made the split key-tile loop (CUTEC_ATTN_FWD_SPLIT) every head dim's
#     default after timing d64 and d128 only.  The default and the one loop (SPLIT=0) in turns,
#     two rounds, non-causal and causal, SDPA beside;
#  2. meas38's measurements with the SM clock from NVML, whose lookup now goes by the driver's
#     PCI bus id (never run on a GPU since), under a 60 s budget of its own;
#  3. fp8y's yield pass against the default, its three interleaved rounds again (the default
#     flips if every round is ahead again).
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead39: skipped: no GPU here"; exit 0; }
log="$out/lead39.log"
start=$(date +%s) budget=${BUDGET_S:-200}
{
    device_head
    echo "== 1. d256 2x16x16384: the default against CUTEC_ATTN_FWD_SPLIT=0, in turns $(el_s)"
    for round in 1 2; do
        for split in default 0; do
            for c in "" "--causal"; do
                device_late "d256 $split $c" && continue
                echo "-- round $round split=$split $c"
                # shellcheck disable=SC2086
                if [ "$split" = default ]; then
                    timeout 60 build/cutec bench attention --headdim 256 --batch 2 --heads 16 --seqlen 16384 $c --iters 10 2>&1 | tail -n 2
                else
                    CUTEC_ATTN_FWD_SPLIT=$split timeout 60 build/cutec bench attention --headdim 256 --batch 2 --heads 16 --seqlen 16384 $c --iters 10 2>&1 | tail -n 2
                fi
            done
        done
    done
    echo "== 2. meas38 (60 s) $(el_s)"
    device_late "meas38" || OUT="$out/meas38" BUDGET_S=60 sh scripts/device-meas38.sh 2>&1 | tail -n 40
    echo "== 3. fp8y (85 s) $(el_s)"
    device_late "fp8y" || OUT="$out/fp8y" sh scripts/device-fp8y.sh 2>&1 | tail -n 30
    device_end
} 2>&1 | tee "$log"
