"""One cutec runtime per device (the GPU for cuda:0, the interpreter for the CPU), with its
GEMM and elementwise libraries, made at first use and kept for the process."""
import ctypes
import threading

from . import _lib
from ._packed import GEMM

_lock = threading.Lock()
_runtimes = {}


class Runtime:
    def __init__(self, device, backend=None):
        """backend: the cutec backend's name, by default the device's (python/bench_overhead.py
        names the interpreter for cuda:0 to time the host path without a GPU)"""
        backend = backend or (b"interp" if device == "cpu" else b"cuda")
        if device not in ("cpu", "cuda:0"):
            raise RuntimeError(f"cutec: tensors on {device}; this version runs on cuda:0 "
                               f"(and the CPU, interpreted) only")
        err = ctypes.create_string_buffer(1024)
        rt = ctypes.c_void_p()
        if _lib.runtime_new(backend, ctypes.byref(rt), err, 1024) != 0:
            raise RuntimeError(f"cutec: no {backend.decode()} runtime: {err.value.decode()}")
        self.rt, self.device = rt, device
        self.gemm = _lib.gemm_lib_new(rt)
        self.ew = _lib.ew_lib_new(rt)
        if not self.gemm or not self.ew:
            raise MemoryError("cutec: out of memory")

    def lib(self, kernel):
        """the library of a cutec_packed_kernel"""
        return self.gemm if kernel == GEMM else self.ew


def runtime(device):
    rt = _runtimes.get(device)
    if rt is None:
        with _lock:
            if device not in _runtimes:
                _runtimes[device] = Runtime(device)
            rt = _runtimes[device]
    return rt


class InterpreterCopies:
    """CPU tensors on the interpreter: it checks every access against buffers of its own,
    so each tensor's bytes are copied into one for the call (the Packed call's slot then
    names that buffer, and `with` gives the data pointers to call with), and the outputs
    back after."""

    def __init__(self, rt, packed, args, outputs):
        self.be = _lib.runtime_backend(rt.rt).contents
        self.packed, self.args, self.outputs, self.bufs = packed, args, outputs, []

    def __enter__(self):
        vt, me = self.be.vt.contents, self.be.self
        for a in self.args:
            buf = _lib.Buffer()
            if vt.alloc(me, max(a.nbytes, 1), ctypes.byref(buf)) != 0:
                raise MemoryError(f"cutec: the interpreter cannot hold {a.name}")
            self.bufs.append(buf)
            vt.upload(me, ctypes.byref(buf), 0, a.data, a.nbytes)
            self.packed.set_buffer(a.slot, buf.ptr or 0, buf.bytes, buf.backend, buf.id)
        return [b.ptr or 0 for b in self.bufs] + [0] * (4 - len(self.bufs))  # the data[]

    def __exit__(self, kind, value, tb):
        vt, me = self.be.vt.contents, self.be.self
        vt.sync(me, None)
        for a, buf in zip(self.args, self.bufs):
            if kind is None and a in self.outputs:
                vt.download(me, a.data, ctypes.byref(buf), 0, a.nbytes)
            vt.free(me, ctypes.byref(buf))
        return False


_current_stream = None


def stream_function():
    """PyTorch's function of a device index giving its current stream as a CUstream (an
    int; 0: the legacy default stream), found once"""
    global _current_stream
    if _current_stream is None:
        import torch  # only once tensors are torch's
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what Triton calls: fast
        _current_stream = raw or (lambda i: torch.cuda.current_stream(i).cuda_stream)
    return _current_stream


def current_stream(index):
    return stream_function()(index) or 0


def check(status, packed, what):
    if status != 0:
        raise RuntimeError(f"{what}: {packed.error() or _lib.status_name(status).decode()}")
