"""One cutec runtime per device (the GPU for cuda:0, the interpreter for the CPU), with its
GEMM and elementwise libraries, made at first use and kept for the process."""
import ctypes
import threading

from . import _lib

_lock = threading.Lock()
_runtimes = {}


class Runtime:
    def __init__(self, device):
        backend = b"interp" if device == "cpu" else b"cuda"
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


def runtime(device):
    rt = _runtimes.get(device)
    if rt is None:
        with _lock:
            if device not in _runtimes:
                _runtimes[device] = Runtime(device)
            rt = _runtimes[device]
    return rt


_local = threading.local()


def error_buffer():
    """This thread's buffer for cutec's messages (made once: calls are hot)."""
    buf = getattr(_local, "err", None)
    if buf is None:
        buf = _local.err = ctypes.create_string_buffer(1024)
    return buf


class InterpreterCopies:
    """CPU tensors on the interpreter: it checks every access against buffers of its own,
    so each tensor's bytes are copied into one for the call, and the outputs back after."""

    def __init__(self, rt, args, outputs):
        self.be = _lib.runtime_backend(rt.rt).contents
        self.args, self.outputs, self.host, self.bufs = args, outputs, [], []

    def __enter__(self):
        vt, me = self.be.vt.contents, self.be.self
        for a in self.args:
            buf = _lib.Buffer()
            ptr, n = a.buffer
            if vt.alloc(me, max(n, 1), ctypes.byref(buf)) != 0:
                raise MemoryError(f"cutec: the interpreter cannot hold {a.name}")
            self.bufs.append(buf)
            vt.upload(me, ctypes.byref(buf), 0, ptr, n)
            self.host.append((ptr, n))
            a.point_at(ctypes.addressof(buf))
        return self

    def __exit__(self, kind, value, tb):
        vt, me = self.be.vt.contents, self.be.self
        vt.sync(me, None)
        for a, buf, (ptr, n) in zip(self.args, self.bufs, self.host):
            if kind is None and a in self.outputs:
                vt.download(me, ptr, ctypes.byref(buf), 0, n)
            vt.free(me, ctypes.byref(buf))
            a.point_at(a.buf)
        return False


def on_device(rt, args, outputs):
    """Where the call's tensors are: as they are on the GPU, copies on the interpreter."""
    return InterpreterCopies(rt, args, outputs) if rt.device == "cpu" else _Nothing()


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def stream_of(args):
    """The current PyTorch stream of the tensors' GPU (None: the legacy default stream)."""
    first = args[0].obj
    if args[0].device == "cpu" or args[0].torch_dtype is None:
        return None
    import torch  # only when the tensors are torch's
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what Triton calls: fast
    if raw is not None:
        return raw(first.device.index or 0)
    return torch.cuda.current_stream(first.device).cuda_stream


def check(status, err, what):
    if status != 0:
        raise RuntimeError(f"{what}: {err.value.decode() or _lib.status_name(status).decode()}")
