#!/bin/sh
# The lead's measurements for the next session (session 41's last pass, about 110 s on one
# H200; log $OUT/lead41c.log): the bf16 GEMV's tensor-core form at one vector (`--mma-from 1`,
# gemv41's untimed suggestion: A straight into mma.sync fragments, no widening) against the
# default ring of 4 at issue 17's three shapes, in turns (default, mma, mma, default), each
# checked against float64 on the GPU first; then cross-entropy's 8192x131072 forward+backward,
# which the final pass's census16 did not reach.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead41c: skipped: no GPU here"; exit 0; }
log="$out/lead41c.log"
start=$(date +%s) budget=${BUDGET_S:-100}
{
    device_head
    for s in 8192x8192 16384x4096 4096x16384; do
        echo "-- check $s mma-from 1: $(timeout 15 build/cutec run gemv --dtype bf16 --shape $s --mma-from 1 --iters 2 2>&1 | tail -n 1)"
        for f in "" "--mma-from 1" "--mma-from 1" ""; do
            # shellcheck disable=SC2086
            device_gemv --dtype bf16 --shape $s $f | tail -n 1
        done
    done
    echo "-- cross-entropy 8192x131072 fwd+bwd $(el_s)"
    device_late ce || CUTEC_TORCH_ROWS=/dev/null timeout 40 build/cutec bench cross-entropy --dtype bf16 --shape 8192x131072 --backward 2>&1 |
        grep -E "cross|WRONG|rror"
    device_end
} 2>&1 | tee "$log"
