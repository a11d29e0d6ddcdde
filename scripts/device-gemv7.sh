#!/bin/sh
# The GEMV pass of branch gemv7 on a GPU machine (issue 17), under 150 s on an H200.  First
# every changed form on the GPU at odd sizes against float64 (NVFP4's six blocks an SM, the
# bf16 ring as the library's choice), then the benches, each row beside a device copy of the
# same bytes in the same process: bf16 (the library's, the register form, the ring's
# variants), NVFP4 (the library's; two rows a warp), the bf16 row sum (the read ceiling), the
# skinny GEMVs, torch.mv.  Variants through CUTEC_GEMV_* knobs (gemv_internal.h) are this
# pass's experiments.  Results in $OUT (default build/device-out); the log's tail is printed.
# Past BUDGET_S (140) the remaining steps print "skipped".
. scripts/device-common.sh
log="$out/gemv7.log"
start=$(date +%s) budget=${BUDGET_S:-140} GEMV_TIMEOUT=20
v()
{ # v ENV ARGS: the bench rows of one variant, its environment named
    e=$1
    shift
    device_late "$e $*" && return
    echo "-- $e $*"
    # shellcheck disable=SC2086
    env $e stdbuf -oL -eL timeout "$GEMV_TIMEOUT" build/cutec bench gemv --iters 20 "$@" 2>&1 | grep -v -E "^#|^gemv "
}
{
    device_begin
    echo "== on the GPU at odd sizes (every element against float64)"
    device_gemv_run --dtype nvfp4 --shape 4100x8256 --batch 3
    device_gemv_run --dtype nvfp4 --shape 261x4160 --batch 2
    device_gemv_run --dtype bf16 --shape 4099x8192 --batch 2
    device_gemv_run --dtype bf16 --shape 1001x4104
    device_gemv_run --dtype f16 --shape 37x20000 --splits 3
    device_gemv_run --dtype bf16 --shape 16385x4096
    device_gemv_run --dtype f16 --shape 3000x6000 --batch 2
    echo "== bench gemv bf16: the library's (ring of 4, row tiles streamed), one row tile a block, registers"
    v X=0 --dtype bf16
    v CUTEC_GEMV_ROW_TILES=1 --dtype bf16
    v X=0 --dtype bf16 --smem-stages 0
    v "CUTEC_GEMV_ROWS=4 CUTEC_GEMV_RING_UNROLL=1" --dtype bf16
    v X=0 --dtype f16
    echo "== bench gemv nvfp4: the library's (six blocks an SM), five, seven (36 bytes spilled)"
    v X=0 --dtype nvfp4
    v CUTEC_GEMV_FP4_MINB=5 --dtype nvfp4
    v CUTEC_GEMV_FP4_MINB=7 --dtype nvfp4
    v X=0 --dtype bf16 --smem-stages 3
    echo "== the bf16 row sum (a read-only stream: the ceiling)"
    device_late sum || timeout 15 build/cutec bench sum --dtype bf16 --iters 20 2>&1 | grep -v "^#"
    echo "== torch.mv bf16"
    device_late torch || stdbuf -oL -eL timeout 20 python3 bench/torch_gemv.py mv-bf16 2>&1
    echo "== skinny as GEMVs with vectors: 8192x8192 x N"
    for n in 8 16 64; do device_gemv --dtype bf16 --shape 8192x8192 --vectors $n | tail -n 1; done
    device_late usage || device_gemv_usage "nvfp4" "nvfp4 --tile-at-a-time 1" "bf16" "bf16 --smem-stages 0"
    device_end
} >"$log" 2>&1
tail -n 100 "$log"
