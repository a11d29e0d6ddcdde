#!/bin/sh
# The lead's checks of session 34 on the GPU (decides nothing by itself):
#   PART=comm: comm_test on one GPU, three runs with tiers (the default) and three with
#     CUTEC_TIER=0: the single-rank f32 average came back with 8 of 61448 elements wrong in
#     both whole-suite passes of 2026-11-27 (19:39, 19:46); comm_test runs no cutec kernel, so
#     tiers should not matter.  The failure line names the first wrong element.
#   PART=llm: the Hopper bf16 GEMM at the issue's LLM shapes (8192x6144x4096, 8192x4096x14336,
#     8192x28672x4096) and 4096^3 / 8192^3 with PDL (the default since the final pass) and
#     without (CUTEC_GEMM_PDL=0), cuBLAS beside in each process, twice each: the final pass
#     timed PDL only at 2048^3, 4096^3 and 8192x8192x1024.
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
    if [ "$part" = llm ]; then
        for pdl in 1 0 1 0; do
            echo "-- CUTEC_GEMM_PDL=$pdl"
            CUTEC_GEMM_PDL=$pdl timeout 60 build/cutec bench gemm --variants hopper --dtype bf16 --layout tn --iters 10 \
                --sizes 8192x6144x4096,8192x4096x14336,8192x28672x4096,4096,8192 2>&1 | grep -E "^#.*M [0-9]|cublas|hopper"
        done
    fi
} >"$log" 2>&1
cat "$log"
