#!/bin/sh
# Branch tidy41's pass on one H200 (code health; no timing): the test programs whose GPU paths
# its commits touched, after the lead's `make all tests` (nothing is built here); log
# $OUT/tidy41.log, under 50 s.  The mid pass (H200, 13:54 UTC, main 9af3d41e + this branch at
# a64ec21d): all passed, nothing skipped (hstu_test 92, hstu_jagged_test 35, cuda_c_test 90,
# export_test 48, driver_test 59; 29 s): every commit kept.  The final pass runs them again on
# main with the branch merged (and the lead's hstu.c since), then hopper_test (the Hopper GEMM's
# plan reads cute_gemm_hopper_tile and the table's shared memory) in what is left of the 50 s.
# No emitted CUDA changed (md5 of 62 kernels and 4 PTX modules, comments stripped, before and
# after each commit); what runs here is the code around them:
#   hstu_jagged_test, hstu_test: hstu_testkit.h's run on a GPU (the SM80 kernel's moderate
#     cases, the Hopper kernel's on an sm_90 card: on an H200 nothing may be skipped), the
#     jagged call's checks through operands_ok, the Hopper plan from attn_plan_hopper_tiles;
#   cuda_c_test, export_test, driver_test: target names by cute_cuda_arch_sm (NVRTC's refusals
#     in words, export's table), the per-arch facts moved to src/backend/cuda_arch.c.
# The rule: a test program with a failure, or an HSTU one with a skip on this card (its GPU
# cases not run), decides "revert" for the commit that touched it; one cut by its time limit
# (a cold JIT cache: each HSTU kernel NVRTC's) "undecided"; else "keep".
#   BUDGET=50 sh scripts/device-tidy41.sh
. scripts/device-common.sh
log="$out/tidy41.log"
start=$(date +%s)
budget=${BUDGET:-50}
# run T SECONDS: build/tests/T under a time limit unless past the budget; its last line
run()
{
    rm -f "$out/$(basename "$1").log"
    device_late "$1" && return
    timeout "$2" build/tests/"$1" >"$out/$(basename "$1").log" 2>&1
    echo "$1 $(el_s): $(tail -n 1 "$out/$(basename "$1").log")"
    grep -m 5 "FAIL\|skipped:" "$out/$(basename "$1").log" | cut -c1-300
}
# verdict T WHAT [SKIPS_OK]: the rule's line for T's last line (WHAT names the commit)
verdict()
{
    line=$(tail -n 1 "$out/$(basename "$1").log" 2>/dev/null)
    case $line in
    *" 0 failed, 0 skipped"*) echo "decides: $2: keep ($1: $line)" ;;
    *" 0 failed, "*) [ -n "${3:-}" ] && echo "decides: $2: keep ($1: $line)" ||
        echo "decides: $2: revert ($1 skipped its GPU cases on this card: $line)" ;;
    *" passed, "*) echo "decides: $2: revert ($1 failed: $line)" ;;
    *) echo "decides: $2: keep, undecided ($1 not run or cut by its time limit: ${line:-no line}; run it again)" ;;
    esac
}
{
    device_head
    if nvidia-smi >/dev/null 2>&1; then
        echo "== test programs on the GPU $(el_s)"
        run kernels/attention/hstu_test 32
        run kernels/attention/hstu_jagged_test 15
        run backend/cuda_c_test 15
        run jit/export_test 10
        run runtime/driver_test 10
        run kernels/gemm/hopper_test 20
        verdict kernels/attention/hstu_jagged_test "hstu_testkit.h and the jagged call's operands_ok"
        verdict kernels/attention/hstu_test "hstu_testkit.h and attn_plan_hopper_tiles"
        verdict backend/cuda_c_test "target names by cute_cuda_arch_sm (NVRTC, CUDA C)" skips-ok
        verdict jit/export_test "target names by cute_cuda_arch_sm (export's table)" skips-ok
        verdict runtime/driver_test "cuda_arch.c (the per-arch facts moved)" skips-ok
        verdict kernels/gemm/hopper_test "cute_gemm_hopper_tile and the Hopper GEMM's smem_room"
    else
        echo "== no GPU here: nothing run"
        echo "decides: tidy41: keep (no GPU)"
    fi
    device_end
} >"$log" 2>&1
cat "$log"
