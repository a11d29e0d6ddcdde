"""Tensors into cute_call_args, zero-copy: a torch.Tensor directly from its data pointer,
shape and strides; anything else with __dlpack__ (CuPy, JAX, NumPy, ...) through its DLPack
capsule.  Either way cutec sees the tensor's memory, never a copy."""
import ctypes

from . import _lib

# DLPack device types: what runs a tensor of each (the GPU, or the CPU interpreter)
_KDL_CPU, _KDL_CUDA = 1, 2
_TORCH_DTYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
                 "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
                 "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


class Arg:
    """One tensor as cutec takes it: the call argument, the buffer it points into (kept
    alive with it), its device ("cpu" or "cuda:N"), its dtype name and the producer."""

    def __init__(self, obj, name):
        self.obj, self.name, self.buf, self.arg = obj, name, _lib.Buffer(), _lib.CallArg()
        if _is_torch(obj):
            self._from_torch(obj)
        elif hasattr(obj, "__dlpack__"):
            self._from_dlpack(obj)
        else:
            raise TypeError(f"{name} must be a Tensor (or support __dlpack__), not "
                            f"{type(obj).__name__}")

    def _from_torch(self, t):
        kind = t.device.type
        if kind not in ("cuda", "cpu"):
            raise RuntimeError(f"{self.name}: expected a CUDA or CPU tensor, got device {t.device}")
        name = str(t.dtype).replace("torch.", "")
        if name not in _TORCH_DTYPES:
            raise TypeError(f"{self.name}: cutec does not take dtype {t.dtype}")
        if t.dim() > 8:
            raise RuntimeError(f"{self.name}: {t.dim()} dimensions (cutec takes at most 8)")
        self.device = "cpu" if kind == "cpu" else f"cuda:{t.device.index or 0}"
        self.dtype_name, self.torch_dtype = _TORCH_DTYPES[name], t.dtype
        shape, stride = t.shape, t.stride()
        # the buffer is the bytes the tensor reaches (its data pointer is their start for
        # the non-negative strides torch makes)
        reach = sum((n - 1) * s for n, s in zip(shape, stride)) + 1 if t.numel() else 0
        self.buf.ptr, self.buf.bytes = t.data_ptr(), reach * t.element_size()
        self._fill(_dtype_number(self.dtype_name), 0, shape, stride)

    def _fill(self, dtype, offset, shape, stride):
        a = self.arg
        a.kind, a.dtype, a.offset, a.ndim = 0, dtype, offset, len(shape)
        a.buf = ctypes.pointer(self.buf)
        for i, (n, s) in enumerate(zip(shape, stride)):
            a.shape[i], a.stride[i] = n, s

    def _from_dlpack(self, obj):
        kind, index = obj.__dlpack_device__()
        if kind not in (_KDL_CPU, _KDL_CUDA):
            raise RuntimeError(f"{self.name}: expected a CUDA or CPU tensor, got DLPack device "
                               f"type {kind}")
        self.device = "cpu" if kind == _KDL_CPU else f"cuda:{index}"
        self.capsule = obj.__dlpack__() if kind == _KDL_CPU else obj.__dlpack__(stream=1)
        dl = _lib.DLTensor.from_address(_get_pointer(self.capsule, b"dltensor"))
        self.buf.ptr, self.buf.bytes = _span(dl)
        err = ctypes.create_string_buffer(256)
        if not _lib.call_dlpack(ctypes.byref(dl), ctypes.byref(self.buf), ctypes.byref(self.arg),
                                err, 256):
            raise TypeError(f"{self.name}: {err.value.decode()}")
        self.arg.buf = ctypes.pointer(self.buf)
        self.dtype_name, self.torch_dtype = None, None

    @property
    def shape(self):
        return tuple(self.arg.shape[i] for i in range(self.arg.ndim))

    @property
    def stride(self):
        return tuple(self.arg.stride[i] for i in range(self.arg.ndim))


_numbers = {}


def _dtype_number(name):
    if name not in _numbers:
        _numbers[name] = _lib.dtype(name)
    return _numbers[name]


def _is_torch(obj):
    return type(obj).__module__.startswith("torch") and hasattr(obj, "untyped_storage")


def _span(dl):
    """The bytes a DLTensor reaches, as a buffer: DLPack does not say the allocation's."""
    lo = hi = 0
    for i in range(dl.ndim):
        n = dl.shape[i]
        s = dl.strides[i] if dl.strides else _row_major_stride(dl, i)
        if n == 0:
            return dl.data or 0, 0
        reach = (n - 1) * s
        lo, hi = (lo + reach, hi) if reach < 0 else (lo, hi + reach)
    size = (dl.dtype.bits * dl.dtype.lanes + 7) // 8
    base = (dl.data or 0) + dl.byte_offset
    return base + lo * size, (hi - lo + 1) * size


def _row_major_stride(dl, i):
    s = 1
    for j in range(i + 1, dl.ndim):
        s *= dl.shape[j]
    return s
