#!/bin/sh
# tidy36's GPU check (one GPU, about 60-80 s on an H200 after `make all tests`).  Nothing new
# to time: three tidies, each meant to change no behaviour, confirmed on the card.
#  1. runtime/dynlib.c now opens the driver, NVRTC, NCCL and nvJitLink (one loader for the
#     four): on the GPU, dynlib_test, driver_test (the device, every copy), tma_desc_test (an
#     optional entry point hidden: cute_cuda_opts.hide), cuda_backend_test (NVRTC and the
#     driver together), ptx_asm_test (nvJitLink's ptxas in the process) and comm_test (NCCL,
#     a communicator of one rank), each against its reference;
#  2. the Hopper backward's named barriers come from a table (kernels/warp_roles.c,
#     hopper_bwd.c's take_barriers; the ids and the PTX unchanged, by md5 on the development
#     machine): `cutec run attention --bwd` at head dim 128, cold, every element against
#     float64, in the two-kernel, fused and fused-atomic forms, causal and not;
#  3. prof35's reading of ncu's units: `sh scripts/device-prof35.sh units` (its three rows the
#     same).
# Decides (one line): every check verified -> "decides: nothing to flip (the tidies hold on
# the GPU)"; else "decides: nothing to flip; N check(s) failed: look before merging tidy36"
# (a failed test above names the part).  Past BUDGET_S (80) a step prints "skipped"; without
# a GPU the GPU steps skip.  Logs in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/tidy36.log"
start=$(date +%s) budget=${BUDGET_S:-80}
gpu=1 bad=0
bwd="attention --bwd --variant hopper --headdim 128 --iters 1 --batch 2 --heads 6 --kv-heads 3 --seqlen 1000"
{
    device_begin
    compile_gpu_head
    echo "== 1. the libraries through dynlib, each test against its reference"
    gpu_test dynlib_test build/tests/runtime/dynlib_test
    gpu_test driver_test build/tests/runtime/driver_test
    gpu_test tma_desc_test build/tests/runtime/tma_desc_test
    gpu_test cuda_backend_test build/tests/runtime/cuda_backend_test
    gpu_test ptx_asm_test build/tests/backend/ptx_asm_test
    gpu_test comm_test build/tests/comm/comm_test
    echo "== 2. the Hopper backward's named barriers from the table: each form against float64"
    # shellcheck disable=SC2086
    {
        run_verdict CUTEC_ATTN_BWD_FORM=two -- $bwd --causal
        run_verdict CUTEC_ATTN_BWD_FORM=fused -- $bwd
        run_verdict CUTEC_ATTN_BWD_FORM=fused -- $bwd --causal
        run_verdict CUTEC_ATTN_BWD_FORM=fused-atomic -- $bwd
    }
    echo "== 3. prof35's reading of ncu's units (three styles, one row)"
    sh scripts/device-prof35.sh units | cut -c1-120
    [ "$(sh scripts/device-prof35.sh units | cut -d: -f2- | sort -u | wc -l)" = 1 ] || bad=$((bad + 1))
    device_end
    if [ "$gpu" = 0 ]; then
        echo "decides: nothing to flip (no GPU: the tidies not checked on one)"
    elif [ "$bad" = 0 ]; then
        echo "decides: nothing to flip (the tidies hold on the GPU)"
    else
        echo "decides: nothing to flip; $bad check(s) failed: look before merging tidy36"
    fi
} 2>&1 | tee "$log"
