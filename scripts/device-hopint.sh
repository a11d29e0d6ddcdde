#!/bin/sh
# The sm_90 synchronization pass on a GPU machine (issue 14, items 1-2): build, then the
# synchronization rows' behaviour tests on the GPU (a producer/consumer pipeline of mbarriers
# and bulk copies, named barriers, a warp spinning on a flag another warp sets, elect.sync,
# the cluster registers, mapa + DSMEM, the cluster barrier, test_wait along an mbarrier's
# life, setmaxnreg, fences, griddepcontrol), the same kernels through the public DSL, and the
# interpreter's own run of them for comparison.  Results go to $OUT (default
# build/device-out); the log's tail is printed.  Well under a minute on an H200.
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
log="$out/hopint.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv 2>&1
    echo "== build"
    make -j16 build/tests/interp/sync_gpu_test build/tests/interp/sync_test build/tests/trace/arch_sync_test 2>&1 | grep -E "error|warning" | head -40
    for t in interp/sync_gpu_test interp/sync_test trace/arch_sync_test; do
        [ -x build/tests/$t ] && timeout 120 build/tests/$t > "$out/$(basename $t).log" 2>&1
        echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
        grep -m 8 -E "FAIL|skipped" "$out/$(basename $t).log" | cut -c1-400
    done
    echo "== registers of the pipeline kernel (ptxas -v, sm_90a)"
    CUTEC_KEEP=src CUTEC_DUMP_DIR="$out/dump" build/tests/interp/sync_gpu_test > /dev/null 2>&1
    for f in "$out"/dump/*.cu; do
        [ -f "$f" ] && nvcc -arch=sm_90a -cubin -Xptxas -v "$f" -o "$out/k.cubin" 2>&1 | grep -E "registers|spill|warning" | head -8
    done
} 2>&1 | tee "$log" | tail -n 40
