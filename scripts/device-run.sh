#!/bin/sh
# One whole pass on a GPU machine (the device tool runs it from the repository root):
# build, every test (the GPU ones run for real), the elementwise benchmark and torch.add in
# the same session.  Results go to $OUT (default build/device-out).
set -u
out=${OUT:-build/device-out}
mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-run: skipped: no GPU here"; exit 0; }
log="$out/device.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
    echo "== build"
    make -j16 all tests 2>&1 | grep -E "error|warning" | head -40
    echo "== tests"
    sh scripts/run-tests.sh build 2>&1 | tail -40
    echo "== bench elementwise (cutec and a device-to-device copy, one process)"
    build/cutec bench elementwise --op add --iters 30 2>&1
    echo "== compile and call costs (a fresh cache: the second process hits the disk)"
    export CUTEC_CACHE_DIR=/tmp/cutec-cache-$$
    rm -rf "$CUTEC_CACHE_DIR"
    build/cutec bench jit 2>&1
    build/cutec bench jit 2>&1
    echo "== SASS of the f16 add"
    build/cutec compile elementwise --op add --dtype f16 --emit sass 2>&1 | grep -E "LDG|STG" | sort | uniq -c
    echo "== torch.add, same session"
    python3 bench/torch_add.py 2>&1
    echo "== clocks after"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
} >"$log" 2>&1
tail -60 "$log"
