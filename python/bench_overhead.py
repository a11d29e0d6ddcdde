"""Host overhead per call of the Python package against the C call, on the GPU:
    python3 python/bench_overhead.py        (after pip install ./python, with PyTorch)
Times, on the host clock, N calls of a tiny bf16 GEMM (64x64x64, so the GPU is never the
bottleneck) three ways: torch.mm; cutec.mm(a, b, out=c); and the library's C entry point
called through ctypes with arguments built once (the floor of any ctypes binding).  The C
call's own overhead is `cutec bench jit` (cute_call against cuLaunchKernel); the figures
belong in bench/RESULTS.md with the GPU and the date."""
import ctypes
import time

import torch

import cutec
from cutec import _lib, _runtime
from cutec._tensor import Arg

N = 20000


def per_call_us(fn):
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(N):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / N * 1e6


def main():
    a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(64, 64, device="cuda", dtype=torch.bfloat16)
    cutec.mm(a, b, out=c)  # compiles once
    args = [Arg(a, "A", 0), Arg(b, "B", 1, transpose=True), Arg(c, "C", 2)]
    rt = _runtime.runtime("cuda:0")
    err = ctypes.create_string_buffer(1024)
    stream = _runtime.stream_of(args)
    refs = [x.arg for x in args]  # this thread's scratch slots 0-2: nothing else may use them

    def prebuilt():
        _lib.gemm(rt.gemm, 0, refs[0], refs[1], refs[2], 1.0, 0.0, stream, err, 1024)

    print(f"{torch.cuda.get_device_name()}, {N} calls each, host microseconds per call:")
    print(f"  torch.mm(a, b, out=c)             {per_call_us(lambda: torch.mm(a, b, out=c)):7.2f}")
    print(f"  cutec.mm(a, b, out=c)             {per_call_us(lambda: cutec.mm(a, b, out=c)):7.2f}")
    print(f"  cutec_gemm via ctypes, args built {per_call_us(prebuilt):7.2f}")
    print("  the C call itself: `cutec bench jit` (cute_call above cuLaunchKernel)")


if __name__ == "__main__":
    main()
