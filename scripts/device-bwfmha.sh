#!/bin/sh
# The Blackwell attention forward's pass (branch bwfmha), under 150 s with the build.
# The kernel (src/kernels/attention/blackwell_fwd.c) is AUTO's choice on an sm_100 target
# only; no machine of this project has a Blackwell, so on the H100/H200 this pass checks
# that nothing changed for sm_90 and that the kernel still verifies on the interpreter:
#  - `cutec run attention` on the GPU (AUTO: the Hopper kernel on sm_90) at 2x8x1000 d128,
#    causal and not, and d64 GQA: every row against float64, timed;
#  - `--variant blackwell` on the GPU: refused with the reason (the target is sm_90);
#  - blackwell_fwd_test: the kernel on the interpreter for sm_100a against float64, and
#    ptxas for sm_100a (no spills).
# On a Blackwell (compute capability 10.x) it also runs and times the kernel itself (`run`
# against float64, `bench` beside SDPA). What it decides: on a Blackwell, a wrong row ->
# AUTO must stop picking it (compile.c's attn_variant); else nothing to decide here.
#   sh scripts/device-bwfmha.sh        (logs under $OUT)
. scripts/device-common.sh
log="$out/bwfmha.log"
start=$(date +%s)
budget=${BUDGET:-120}
run() { echo "-- run $*"; timeout 30 build/cutec run attention "$@" 2>&1 | tail -n 2; }
{
    device_begin
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1)
    echo "compute capability: ${cc:-none (no GPU)}"
    if [ -z "$cc" ]; then
        echo "-- skipped: no GPU (the interpreter's checks below still run)"
    else
        run --batch 2 --heads 8 --seqlen 1000 --headdim 128
        run --batch 2 --heads 8 --seqlen 1000 --headdim 128 --causal
        run --batch 2 --heads 8 --kv-heads 2 --seqlen 999 --headdim 64 --causal
        case $cc in
        10.*)
            run --variant blackwell --batch 2 --heads 8 --seqlen 1000 --headdim 128
            run --variant blackwell --batch 2 --heads 8 --kv-heads 2 --seqlen 999 --headdim 64 --causal
            device_late bench || timeout 60 build/cutec bench attention --variant blackwell 2>&1 | tail -n 8
            ;;
        *) run --variant blackwell --batch 1 --heads 2 --seqlen 200 --headdim 64 ;;
        esac
    fi
    device_tests kernels/attention/blackwell_fwd_test
    device_end
} >"$log" 2>&1
grep -vE "^(make|cc |  CC|ar )" "$log" | tail -n 60
