"""Host overhead per call of the Python package against the C call, in one process:
    python3 python/bench_overhead.py            (GPU and PyTorch: the real launches)
    python3 python/bench_overhead.py --stub     (no GPU: the interpreter's runtime with its
                                                 launches stubbed out)
(the package on PYTHONPATH or installed: this folder's cutec/ holds no library, and is
taken off the path)
A tiny bf16 GEMM (64x64x64: the GPU is never the bottleneck) and a 4096-element add, each
call's host time (rounds of 100 calls, each round timed alone, then the GPU drained; the
median round): cutec_gemm and cutec_call_packed called from C (bench/call_overhead.c,
compiled here with cc, handed the entry points of the library the package loaded); the
package's packed call with its pointers prebuilt (the floor of any ctypes binding);
cutec.mm(a, b, out=c) and cutec.add(x, y, out=z) as a user calls them; torch.mm beside them
on the GPU.  The figures belong in bench/RESULTS.md with the GPU and the date."""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if sys.path and os.path.abspath(sys.path[0] or os.curdir) == HERE:
    del sys.path[0]  # as python3 -P would, on any Python
sys.path.append(os.path.join(HERE, "tests"))  # torch_like (the --stub tensors)

import cutec  # noqa: E402
from cutec import _calls, _lib, _runtime  # noqa: E402
from torch_like import TorchLike  # noqa: E402
ROUNDS, CALLS = 101, 100


def helper():
    """bench/call_overhead.c, compiled for this run"""
    so = os.path.join(tempfile.mkdtemp(), "call_overhead.so")
    subprocess.check_call(["cc", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O2", "-shared",
                           "-fPIC", "-I" + os.path.join(ROOT, "include"),
                           os.path.join(ROOT, "bench", "call_overhead.c"), "-o", so])
    h = ctypes.CDLL(so)
    for name in ("bench_gemm_us", "bench_packed_us"):
        getattr(h, name).restype = ctypes.c_double
        getattr(h, name).argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    h.bench_stub_launch.argtypes = [ctypes.c_void_p]
    return h


def median_us(fn, sync):
    """the median over ROUNDS of one call's host time in a round of CALLS"""
    rounds = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        rounds.append((time.perf_counter() - t0) / CALLS * 1e6)
        sync()
    return statistics.median(rounds)


def median_c(loop, entry, packed, sync):
    rounds = []
    for _ in range(ROUNDS):
        rounds.append(loop(entry, packed, CALLS))
        sync()
    return statistics.median(rounds)


def stub_tensor(*shape):
    """a bf16 tensor on cuda:0 as the package reads it, in host memory (--stub: no kernel
    runs)"""
    mem = ctypes.create_string_buffer(2 * shape[0] * (shape[1] if len(shape) == 2 else 1))
    t = TorchLike(shape, ctypes.addressof(mem), "bfloat16", 2)
    t.mem = mem
    return t


def tensors(stub):
    if stub:
        return [stub_tensor(64, 64) for _ in range(3)], [stub_tensor(4096) for _ in range(3)]
    import torch
    g = [torch.randn(64, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3)]
    e = [torch.randn(4096, device="cuda", dtype=torch.bfloat16) for _ in range(3)]
    return g, e


def stub_runtime(h):
    rt = _runtime.Runtime("cuda:0", backend=b"interp")
    h.bench_stub_launch(ctypes.cast(_lib.runtime_backend(rt.rt), ctypes.c_void_p))
    _runtime._runtimes["cuda:0"] = rt
    _runtime._current_stream = lambda index: 0


def only_call(fn):
    """the packed call fn keeps (fn's first call builds it)"""
    _calls.cached().clear()
    fn()
    (call,) = _calls.cached().values()
    return call


def accessors(t):
    """what each way of reading a torch tensor's signature costs (the kept call's key reads
    dtype, shape, stride() and get_device() of each tensor, then data_ptr())"""
    import torch
    ways = [("t.dtype", lambda: t.dtype), ("t.shape", lambda: t.shape),
            ("t.stride()", lambda: t.stride()), ("t.get_device()", lambda: t.get_device()),
            ("t.device", lambda: t.device), ("t.is_cuda", lambda: t.is_cuda),
            ("t.data_ptr()", lambda: t.data_ptr()), ("t.storage_offset()", lambda: t.storage_offset()),
            ("t._cdata", lambda: t._cdata), ("t.__dlpack_device__()", lambda: t.__dlpack_device__()),
            ("torch raw stream", lambda: torch._C._cuda_getCurrentRawStream(0)),
            ("empty lambda", lambda: None)]
    print("torch accessors, ns per read (median of 101 rounds of 100, the lambda included):")
    for name, fn in ways:
        print(f"  {name:28s} {median_us(fn, lambda: None) * 1e3:8.0f}")


def main():
    stub = "--stub" in sys.argv
    h = helper()
    sync = lambda: None  # noqa: E731
    if stub:
        stub_runtime(h)
        print("no GPU: the interpreter's runtime, its launches stubbed out (host path only)")
    else:
        try:
            import torch
            ok = torch.cuda.is_available()
        except ImportError:
            ok = False
        if not ok:
            sys.exit("bench_overhead: no PyTorch or no GPU (--stub times the host path alone)")
        sync = torch.cuda.synchronize
        print(torch.cuda.get_device_name())
    (a, b, c), (x, y, z) = tensors(stub)
    mm = lambda: cutec.mm(a, b, out=c)  # noqa: E731
    add = lambda: cutec.add(x, y, out=z)  # noqa: E731
    gemm_call, add_call = only_call(mm), only_call(add)
    cached = _calls.cached()
    cached.clear()
    mm(), add()  # both kept again
    gp, ap = gemm_call.packed, add_call.packed
    ptrs = [t.data_ptr() for t in (a, b, c)]
    rows = [("C      cutec_gemm", median_c(h.bench_gemm_us, _lib.lib.cutec_gemm, gp.addr, sync)),
            ("C      cutec_call_packed (gemm)", median_c(h.bench_packed_us, _lib.call_packed,
                                                        gp.addr, sync)),
            ("Python packed call, pointers prebuilt",
             median_us(lambda: gp.run(*ptrs, 0, 0, 1.0, 0.0), sync)),
            ("Python cutec.mm(a, b, out=c)", median_us(mm, sync)),
            ("C      cutec_call_packed (add)", median_c(h.bench_packed_us, _lib.call_packed,
                                                       ap.addr, sync)),
            ("Python cutec.add(x, y, out=z)", median_us(add, sync))]
    if not stub:
        import torch
        rows.append(("torch.mm(a, b, out=c)", median_us(lambda: torch.mm(a, b, out=c), sync)))
        rows.append(("cutec.mm(a, b) (allocates)", median_us(lambda: cutec.mm(a, b), sync)))
        rows.append(("torch.mm(a, b) (allocates)", median_us(lambda: torch.mm(a, b), sync)))
    if not stub:
        accessors(a)
    hot = "C (cutec._fast)" if _calls.run3 is not _calls.run3_python else "Python (no cutec._fast)"
    print(f"the kept calls' hot path: {hot}")
    print(f"host microseconds per call, median of {ROUNDS} rounds of {CALLS}:")
    for name, us in rows:
        print(f"  {name:40s} {us:8.2f}")
    d = dict(rows)
    print(f"  Python over C, GEMM: cutec.mm - cutec_gemm = "
          f"{d['Python cutec.mm(a, b, out=c)'] - d['C      cutec_gemm']:.2f} us (issue 19: within 3)")
    print(f"  Python over C, add:  cutec.add - cutec_call_packed = "
          f"{d['Python cutec.add(x, y, out=z)'] - d['C      cutec_call_packed (add)']:.2f} us")


if __name__ == "__main__":
    main()
