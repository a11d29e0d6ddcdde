#!/bin/sh
# The hopfix pass on a GPU machine (issue 14: TMA and the interpreter's sync machinery):
# builds the tests it needs, runs the TMA and synchronization tests on the GPU (each also
# runs its interpreter half), the interpreter's cluster / try_wait tests, and the TMA probe
# (src/interp/gpu/tma_probe.cu: one tile-mode copy per process, so that a trap ends only its
# own context).  Logs under $OUT (default build/device-out), tarred to $OUT/hopfix-logs.tgz;
# the summary is printed.  About 2 minutes on an H200.
#   bash scripts/device-hopfix.sh
# What it should show:
#  - interp/tma_test, atom/tma_copy_test, interp/sync_gpu_test, interp/sync_test,
#    interp/cluster_test, interp/try_wait_test, kernels/pipeline_test,
#    interp/wgmma_read_test: "N passed, 0 failed, 0 skipped" (tma_test's GPU half: every
#    load, store and reduce-add case at 16-byte-aligned first columns, no
#    CUDA_ERROR_ILLEGAL_INSTRUCTION; tma_copy_test: the 2-CTA multicast on the GPU and on the
#    interpreter);
#  - the fp8 wgmma recorder: "recorded: 10 cases" ($OUT/hw_wgmma_cases.h, to commit as
#    src/interp/hw_wgmma_cases.h for fitting the interpreter's fp8 wgmma arithmetic; a
#    message "... differ from the exact product of small values" instead means its layout
#    assumption is wrong and nothing was recorded);
#  - the probe: "ok, 0 of N elements wrong" for every box whose first column is at a 16-byte
#    boundary (c0 * es % 16 == 0, negative ones included) and "TRAP
#    CUDA_ERROR_ILLEGAL_INSTRUCTION" for the others (c0 = 1 of u8 was the trap seen).  If an
#    unaligned row says ok, the rule the interpreter and the TMA atoms now enforce
#    (inst_tma.c inner_start_ok, tma_copy.c inner_aligned) is too strict and must be undone.
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-hopfix: skipped: no GPU here"; exit 0; }
log="$out/hopfix.log"
tests="interp/tma_test atom/tma_copy_test interp/sync_gpu_test interp/sync_test interp/cluster_test
       interp/try_wait_test kernels/pipeline_test interp/wgmma_read_test"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv 2>&1
    echo "== build"
    make -j16 $(for t in $tests; do printf 'build/tests/%s ' "$t"; done) 2>&1 | grep -E "error|warning" | head -40
    echo "== tests"
    for t in $tests; do
        [ -x build/tests/$t ] || { echo "$t: not built"; continue; }
        timeout 120 build/tests/$t > "$out/$(basename $t).log" 2>&1
        echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
        grep -m 8 -E "FAIL|skipped" "$out/$(basename $t).log" | cut -c1-400
    done
    echo "== the try_wait answers on the pipeline tests (interpreter): CUTEC_INTERP_TRY_WAIT=false"
    CUTEC_INTERP_TRY_WAIT=false timeout 60 build/tests/interp/sync_test 2>&1 | tail -n 1
    echo "== the fp8 wgmma recorder (src/interp/gpu/hw_wgmma.cu): $out/hw_wgmma_cases.h"
    if nvcc -O2 -gencode arch=compute_90a,code=sm_90a src/interp/gpu/hw_wgmma.cu -o "$out/hw_wgmma" > "$out/hw_wgmma_build.log" 2>&1; then
        timeout 60 "$out/hw_wgmma" > "$out/hw_wgmma_cases.h" && echo "recorded: $(grep -c '^    {"' "$out/hw_wgmma_cases.h") cases"
    else
        echo "nvcc failed:"; head -20 "$out/hw_wgmma_build.log"
    fi
    echo "== TMA probe: which boxes trap (one process each)"
    if nvcc -O2 -arch=sm_90a src/interp/gpu/tma_probe.cu -lcuda -o "$out/tma_probe" > "$out/probe_build.log" 2>&1; then
        for v in "load 1 48 0" "load 1 48 16" "load 1 48 -16" "load 2 24 8" "load 4 12 4" "store 4 12 4" \
                 "load 1 48 1" "load 1 32 1" "load 1 48 8" "load 1 48 -3" "load 2 24 1" "load 4 12 1" \
                 "load 4 12 2" "store 4 12 1"; do
            timeout 30 "$out/tma_probe" $v
        done
    else
        echo "nvcc failed:"; head -20 "$out/probe_build.log"
    fi
} >"$log" 2>&1
tar czf "$out/hopfix-logs.tgz" -C "$out" $(cd "$out" && ls *.log hw_wgmma_cases.h 2>/dev/null) 2>/dev/null
tail -n 80 "$log"
