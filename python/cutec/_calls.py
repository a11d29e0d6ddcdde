"""A call signature's packed call, checked and built once.

The first call with a signature (the kernel, and each tensor's dtype, shape, strides and
device) reads its tensors the careful way (_tensor.Arg: every check, PyTorch-style errors)
into a Packed struct.  When its tensors are torch's on the GPU, the struct is kept for this
thread under the signature; a later call with that signature only writes the data pointers,
the current stream and the scales into it and calls the library (whose own checks, those
that depend on the pointers too, run on every call).  run3 is that hot path: cutec._fast's
when the package was built with it (python/cutec/_fast.c), else the same in Python."""
import ctypes
import threading

from ._lib import call_packed
from ._packed import HEAD, SIZE, Packed
from ._runtime import InterpreterCopies, check, current_stream, runtime, stream_function

MAX_CALLS = 1024  # signatures kept per thread (a struct each, 1.4 KB)


class _Kept(threading.local):
    def __init__(self):
        self.calls = {}  # this thread's packed calls by signature (the hot path reads it)


kept = _Kept()


def cached():
    """This thread's packed calls by signature."""
    return kept.calls


def run3_python(calls, tag, a, b, c, alpha, beta):
    """True when the call kept in calls under the signature of (tag, a, b, c) ran; else that
    signature (None: a tensor is not torch-like) for the slow path to check, run and keep the
    call under.  cutec._fast.run3 does the same in C."""
    try:
        key = (tag, a.dtype, b.dtype, c.dtype, a.shape, b.shape, c.shape, a.stride(),
               b.stride(), c.stride(), a.get_device(), b.get_device(), c.get_device())
        call = calls[key]
    except KeyError:
        return key
    except (AttributeError, TypeError):
        return None
    call.run(a.data_ptr(), b.data_ptr(), c.data_ptr(), alpha, beta)
    return True


def _fast_run3():
    """cutec._fast.run3 bound to the library the package loaded, or None without it"""
    try:
        from . import _fast
    except ImportError:
        return None
    _fast.init(ctypes.cast(call_packed, ctypes.c_void_p).value, SIZE)
    return _fast.run3


run3 = _fast_run3() or run3_python


class Call:
    """A packed call kept for a signature whose tensors are torch's on cuda:index.  run()
    is the whole per-call path: one pack_into, one ctypes call."""
    __slots__ = ("packed", "mem", "addr", "index", "stream", "what")

    def __init__(self, packed, index, what):
        self.packed, self.mem, self.addr = packed, packed.mem, packed.addr
        self.index, self.stream, self.what = index, stream_function(), what

    def run(self, d0, d1, d2, alpha=1.0, beta=0.0):
        HEAD.pack_into(self.mem, 0, d0, d1, d2, 0, self.stream(self.index) or 0, alpha, beta)
        status = call_packed(self.addr)
        if status != 0:
            self.failed(status)

    def failed(self, status):
        """raises cutec's error of a kept call that returned status"""
        check(status, self.packed, self.what)


def same_device(what, args):
    devices = {a.device for a in args}
    if len(devices) > 1:
        raise RuntimeError(f"{what}: expected all tensors to be on the same device, but found "
                           f"at least two devices, {' and '.join(sorted(devices))}!")
    return args[0].device


def run_args(packed, args, outputs, what, alpha=1.0, beta=0.0, key=None):
    """The call of packed, whose tensors args were read into it: on the GPU as they are (and
    kept under key when they are all torch's), on the interpreter through copies."""
    device = same_device(what, args)
    rt = runtime(device)
    packed.set_lib(rt.lib(packed.kernel()))  # known once the tensors' device is
    data = [a.data for a in args] + [0] * (4 - len(args))
    if device == "cpu":
        with InterpreterCopies(rt, packed, args, outputs) as copies:
            status = packed.run(*copies, 0, alpha, beta)
        return check(status, packed, what)
    torch_only = all(a.torch_dtype is not None for a in args)
    index = int(device.split(":")[1])
    if torch_only and key is not None:
        calls = cached()
        if len(calls) >= MAX_CALLS:  # a program of ever new shapes: start over
            calls.clear()
        calls[key] = Call(packed, index, what)
    stream = current_stream(index) if torch_only else 0
    check(packed.run(*data, stream, alpha, beta), packed, what)


def new_packed(kernel, which, ntensors):
    return Packed(kernel, which, ntensors, None)

