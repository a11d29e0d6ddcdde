#!/bin/sh
# The lead's marks of session 41 on main (about 110 s on one H200; log $OUT/lead41.log): what
# session 40 changed last and never timed on the GPU: the attention backward d128 with the
# dependent launches the default, beside SDPA (8x16x4096, 2x16x16384; each process prints both
# causalities, ~30-40 s with SDPA), and a jagged HSTU batch (AUTO: the Hopper kernel) beside
# torch's dense form on the batch padded to the longest (`cutec bench hstu --jagged`).
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead41: skipped: no GPU here"; exit 0; }
log="$out/lead41.log"
start=$(date +%s) budget=${BUDGET_S:-100}
{
    device_head
    for s in "--batch 8 --heads 16 --seqlen 4096" "--batch 2 --heads 16 --seqlen 16384"; do
        echo "-- bwd d128 $s $(el_s)"
        # shellcheck disable=SC2086
        device_late "bwd $s" || timeout 50 build/cutec bench attention --bwd --headdim 128 $s --iters 10 2>&1 | tail -n 3
    done
    echo "-- jagged HSTU beside torch's padded dense form $(el_s)"
    device_late jagged || timeout 40 build/cutec bench hstu --jagged 4000,1,8192,0,3000 --heads 4 --headdim 128 --iters 10 2>&1 |
        grep -E "^bf16|^# torch|WRONG|rror"
    device_end
} 2>&1 | tee "$log"
