#!/bin/sh
# Issue 12 on a GPU machine: the thread tests (one compiled function shared by threads, the
# library's kernels called from threads), the cache tests (hostile and faulting caches), and the
# SGEMM and elementwise figures against their references in the same process.
# Logs go to $OUT (default build/device-out) and $OUT/every-caller.tgz.
#   sh scripts/device-every-caller.sh
. scripts/device-common.sh
log="$out/every-caller.log"
{
    device_begin
    device_tests jit/thread_test kernels/lib_threads_test kernels/fn_cache_test \
        runtime/cache_test runtime/cache_hostile_test runtime/cache_fault_gpu_test jit/jit_test
    echo "== bench gemm f32 (the library's SGEMM) against cuBLAS"
    build/cutec bench gemm --dtype f32 --sizes 4096,8192 --iters "$iters" --variants pipelined 2>&1
    echo "== bench elementwise add against a device-to-device copy"
    build/cutec bench elementwise --op add --iters 30 2>&1
} 2>&1 | tee "$log" | tail -n "${TAIL:-80}"
tar czf /tmp/every-caller.tgz -C "$out" . && mv /tmp/every-caller.tgz "$out/"
