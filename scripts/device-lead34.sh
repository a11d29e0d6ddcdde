#!/bin/sh
# The lead's checks of session 34 on the GPU (decides nothing by itself):
#   PART=comm: comm_test on one GPU, three runs with tiers (the default) and three with
#     CUTEC_TIER=0: the single-rank f32 average came back with 8 of 61448 elements wrong in
#     both whole-suite passes of 2026-11-27 (19:39, 19:46); comm_test runs no cutec kernel, so
#     tiers should not matter.  The failure line names the first wrong element.
# Log $OUT/lead34-PART.log.
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-lead34: skipped: no GPU here"; exit 0; }
part=${PART:-comm}
log="$out/lead34-$part.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null); CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1
    if [ "$part" = comm ]; then
        for tier in default default default 0 0 0; do
            if [ "$tier" = default ]; then r=$(timeout 120 build/tests/comm/comm_test 2>&1)
            else r=$(CUTEC_TIER=0 timeout 120 build/tests/comm/comm_test 2>&1); fi
            echo "tier $tier: $(printf '%s\n' "$r" | grep -E "FAIL|passed" | head -4 | tr '\n' ' ')"
        done
    fi
} >"$log" 2>&1
cat "$log"
