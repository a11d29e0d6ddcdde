"""Tensors into cute_call_args, zero-copy: a torch.Tensor directly from its data pointer,
shape and strides; anything else with __dlpack__ (CuPy, JAX, NumPy, ...) through its DLPack
capsule.  Either way cutec sees the tensor's memory, never a copy."""
import ctypes
import struct
import threading

from . import _lib

# DLPack device types: what runs a tensor of each (the GPU, or the CPU interpreter)
_KDL_CPU, _KDL_CUDA = 1, 2
_TORCH_DTYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
                 "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
                 "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


# A call's tensors are packed into this thread's scratch memory, one slot each: a
# cute_buffer, then the cute_call_arg pointing at it (one struct.pack_into each: building
# ctypes structures per call would cost more than the launch).  _lib checks the layouts.
_BUF = struct.Struct("@PNiQ")          # cute_buffer: ptr, bytes, backend, id
_ARG = struct.Struct("@BBPNi8q8qqd")   # cute_call_arg: kind, dtype, buf, offset, ndim, ...
_SLOT, _SLOTS = 256, 4
if _BUF.size != _lib.abi_sizeof(b"cute_buffer") or _ARG.size != _lib.abi_sizeof(b"cute_call_arg") \
        or _BUF.size + _ARG.size > _SLOT:
    raise ImportError("cutec: the library's cute_buffer or cute_call_arg is not laid out as this "
                      "package packs them: reinstall it")
_ZEROS = (0,) * 8
_local = threading.local()


def _scratch():
    mem = getattr(_local, "mem", None)
    if mem is None:
        mem = _local.mem = ctypes.create_string_buffer(_SLOT * _SLOTS)
        _local.base = ctypes.addressof(mem)
    return mem, _local.base


class Arg:
    """One tensor as cutec takes it, in slot `slot` of this thread's scratch: `buf` and
    `arg` are the addresses of its cute_buffer and cute_call_arg; its device ("cpu" or
    "cuda:N"), its torch dtype (None for other producers) and the object itself."""

    def __init__(self, obj, name, slot, transpose=False):
        self.obj, self.name = obj, name
        self.mem, base = _scratch()
        self.off = slot * _SLOT
        self.buf = base + self.off
        self.arg = self.buf + _BUF.size
        if _is_torch(obj):
            self._from_torch(obj, transpose)
        elif hasattr(obj, "__dlpack__"):
            self._from_dlpack(obj, transpose)
        else:
            raise TypeError(f"{name} must be a Tensor (or support __dlpack__), not "
                            f"{type(obj).__name__}")

    def _from_torch(self, t, transpose):
        self.device = _device_names.get(t.device) or _device_name(t.device, self.name)
        self.torch_dtype = t.dtype
        number = _torch_dtype_number(t.dtype, self.name)
        shape, stride = tuple(t.shape), t.stride()
        nd = len(shape)
        if nd > 8:
            raise RuntimeError(f"{self.name}: {nd} dimensions (cutec takes at most 8)")
        # the buffer is the bytes the tensor reaches from its data pointer (torch's strides
        # are never negative)
        reach = 1
        for n, s in zip(shape, stride):
            reach += (n - 1) * s
        if 0 in shape:
            reach = 0
        _BUF.pack_into(self.mem, self.off, t.data_ptr(), reach * t.element_size(), 0, 0)
        if transpose:
            shape, stride = shape[::-1], stride[::-1]
        self.shape, self.stride = shape, tuple(stride)
        _ARG.pack_into(self.mem, self.off + _BUF.size, 0, number, self.buf, 0, nd,
                       *(shape + _ZEROS)[:8], *(tuple(stride) + _ZEROS)[:8], 0, 0.0)

    def _from_dlpack(self, obj, transpose):
        kind, index = obj.__dlpack_device__()
        if kind not in (_KDL_CPU, _KDL_CUDA):
            raise RuntimeError(f"{self.name}: expected a CUDA or CPU tensor, got DLPack device "
                               f"type {kind}")
        self.device = "cpu" if kind == _KDL_CPU else f"cuda:{index}"
        self.torch_dtype = None
        self.capsule = obj.__dlpack__() if kind == _KDL_CPU else obj.__dlpack__(stream=1)
        dl = _lib.DLTensor.from_address(_get_pointer(self.capsule, b"dltensor"))
        _BUF.pack_into(self.mem, self.off, *_span(dl), 0, 0)
        err = ctypes.create_string_buffer(256)
        if not _lib.call_dlpack(ctypes.byref(dl), self.buf, self.arg, err, 256):
            raise TypeError(f"{self.name}: {err.value.decode()}")
        f = self._fields()
        self.shape, self.stride = tuple(f[5:5 + f[4]]), tuple(f[13:13 + f[4]])
        if transpose:
            self.shape, self.stride = self.shape[::-1], self.stride[::-1]
            self._set_dims(self.shape, self.stride)

    def _fields(self):
        return _ARG.unpack_from(self.mem, self.off + _BUF.size)

    def _set_dims(self, shape, stride):
        f = list(self._fields())
        f[5:13], f[13:21] = (tuple(shape) + _ZEROS)[:8], (tuple(stride) + _ZEROS)[:8]
        _ARG.pack_into(self.mem, self.off + _BUF.size, *f)

    def point_at(self, buffer_address):
        """Make the argument point into another cute_buffer (the interpreter's copy)."""
        f = list(self._fields())
        f[2] = buffer_address
        _ARG.pack_into(self.mem, self.off + _BUF.size, *f)

    @property
    def buffer(self):
        """(address, bytes) of the tensor's memory"""
        ptr, n, _, _ = _BUF.unpack_from(self.mem, self.off)
        return ptr or 0, n



_device_names = {}


def _device_name(device, name):
    """"cuda:N" or "cpu" for a torch.device (cached: calls are hot)"""
    if device.type not in ("cuda", "cpu"):
        raise RuntimeError(f"{name}: expected a CUDA or CPU tensor, got device {device}")
    text = "cpu" if device.type == "cpu" else f"cuda:{device.index or 0}"
    _device_names[device] = text
    return text


def _torch_dtype_number(dtype, name):
    number = _numbers.get(dtype)
    if number is None:
        short = _TORCH_DTYPES.get(str(dtype).replace("torch.", ""))
        if short is None:
            raise TypeError(f"{name}: cutec does not take dtype {dtype}")
        number = _numbers[dtype] = _lib.dtype(short)
    return number


_numbers = {}


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
