#!/bin/sh
# The lead's final-pass marks of issue 18 on merged main (about 80 s on one H200; log
# $OUT/lead40b.log): the backward d128 beside SDPA's (8x16x4096, 2x16x16384; each process prints
# both causalities, ~30 s each with SDPA), then the forward d256 2x16x16384 beside SDPA.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead40b: skipped: no GPU here"; exit 0; }
log="$out/lead40b.log"
start=$(date +%s) budget=${BUDGET_S:-75}
{
    device_head
    for s in "--batch 8 --heads 16 --seqlen 4096" "--batch 2 --heads 16 --seqlen 16384"; do
        echo "-- bwd d128 $s $(el_s)"
        # shellcheck disable=SC2086
        device_late "bwd $s" || timeout 45 build/cutec bench attention --bwd --headdim 128 $s --iters 10 2>&1 | tail -n 3
    done
    echo "-- fwd d256 2x16x16384 $(el_s)"
    device_late "d256" || timeout 25 build/cutec bench attention --headdim 256 --batch 2 --heads 16 --seqlen 16384 --iters 10 2>&1 | tail -n 3
    device_end
} 2>&1 | tee "$log"
