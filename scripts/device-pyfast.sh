#!/bin/sh
# The Python package's host overhead on a GPU machine (issue 19): build, the packed call's C
# test, pip install ./python into a scratch target, its tests (PyTorch on the GPU: bf16
# cutec.mm against torch.mm, every dtype, int8 against an exact int64 product on the CPU;
# the kept calls; the interpreter), then in one process the host time per call of
# cutec_gemm called from C beside cutec.mm from Python (the installed package, not the
# tree's), the same bench with the launches stubbed out (the host path alone), and
# cute_call's own overhead (bench jit).  The log is printed and tarred with pip's into
# $OUT/pyfast-logs.tar.gz (default build/device-out).  About a minute.
#   sh scripts/device-pyfast.sh
. scripts/device-common.sh
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-pyfast: skipped: no GPU here"; exit 0; }
log="$out/pyfast.log"
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(git log --oneline -1 2>/dev/null)"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv 2>&1
    python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" 2>&1
    echo "== build"
    make -j16 all build/tests/kernels/packed_call_test 2>&1 | grep -E "error|warning" | head -20
    device_tests kernels/packed_call_test
    device_python  # the tests, then the bench on the GPU's launches
    echo "== the same with the launches stubbed out (interpreter runtime, host path only)"
    PYTHONPATH="$pypath" CUTEC_LIB=$lib timeout 120 python3 python/bench_overhead.py --stub 2>&1
    echo "== cute_call's own overhead (bench jit)"
    timeout 60 build/cutec bench jit 2>&1 | tail -n 12
} >"$log" 2>&1
tar czf "$out/pyfast-logs.tar.gz" -C "$out" pyfast.log pip.log packed_call_test.log 2>/dev/null
tail -n 100 "$log"
