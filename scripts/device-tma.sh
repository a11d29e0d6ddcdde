#!/bin/sh
# The TMA pass on a GPU machine (issue 14 items 4 and 6): build, then the TMA tests on the
# GPU (each also runs its interpreter half), and the SASS of the TMA kernels.  Results go to
# $OUT (default build/device-out); the log's tail is printed.  Under 2 minutes on an H200.
#   sh scripts/device-tma.sh
# What it should show: every test line "N passed, 0 failed, 0 skipped" (tma_copy: the load
# round trips of u8/f16/f32/u64 x swizzle none/32/64/128B, stores and reduce-adds, multicast
# in 2-CTA clusters; interp/tma: the rows against the PTX ISA's reference on the GPU too,
# tensormap.replace included; tma_desc: the driver's encoding, its cache's hit/miss counts, threads;
# launch_v2: clusters through __cluster_dims__ and cuLaunchKernelEx), the example printing
# the same 8 x 16 table as docs/tma.md, and the SASS holding UTMALDG (loads, .MULTICAST for
# the cluster kernel), UTMASTG and UTMAREDG.
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-tma: skipped: no GPU here"; exit 0; }
log="$out/tma.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv 2>&1
    echo "== build"
    make -j16 all tests 2>&1 | grep -E "error|warning" | head -40
    echo "== tests on the GPU"
    mkdir -p "$out/sass"
    for t in atom/tma_copy_test runtime/tma_desc_test interp/tma_test jit/launch_v2_test \
             interp/inst_gpu_test backend/cuda_c_inst_test; do
        [ -x build/tests/$t ] || { echo "$t: not built"; continue; }
        CUTEC_KEEP=sass CUTEC_DUMP_DIR="$out/sass" CUTEC_NO_CACHE=1 timeout 120 build/tests/$t \
            > "$out/$(basename $t).log" 2>&1
        echo "$t: $(tail -n 1 "$out/$(basename $t).log")"
        grep -m 8 -E "FAIL|skipped" "$out/$(basename $t).log" | cut -c1-400
    done
    echo "== docs/examples/tma_example on the GPU (the transcript of docs/tma.md)"
    cc -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude docs/examples/tma_example.c build/libcutec.a \
        -lm -ldl -lpthread -o "$out/tma_example" && CUTEC_BACKEND=cuda "$out/tma_example"
    echo "== TMA instructions in the SASS of the kernels the tests compiled"
    cat "$out"/sass/* 2>/dev/null | grep -oE "UTMA(LDG|STG|REDG|PF|CCTL)[.A-Z0-9_]*|UBLKCP[.A-Z0-9_]*|SYNCS[.A-Z0-9_]*" | sort | uniq -c
} >"$log" 2>&1
tail -n 80 "$log"
