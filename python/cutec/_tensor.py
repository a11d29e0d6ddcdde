"""Tensors into cute_call_args, zero-copy: a torch.Tensor directly from its data pointer,
shape and strides; anything else with __dlpack__ (CuPy, JAX, NumPy, ...) through its DLPack
capsule.  Either way cutec sees the tensor's memory, never a copy."""
import ctypes

from . import _lib
from ._packed import ARG

# DLPack device types: what runs a tensor of each (the GPU, or the CPU interpreter)
_KDL_CPU, _KDL_CUDA = 1, 2
_TORCH_DTYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
                 "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
                 "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]

class Arg:
    """One tensor as cutec takes it, written into slot `slot` of a Packed call (its
    cute_buffer and cute_call_arg): its device ("cpu" or "cuda:N"), its torch dtype (None
    for other producers), its memory (data, nbytes), shape, strides and the object itself."""

    def __init__(self, obj, name, packed, slot, transpose=False):
        self.obj, self.name = obj, name
        self.packed, self.slot = packed, slot
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
        shape, stride = tuple(t.shape), tuple(t.stride())
        if len(shape) > 8:
            raise RuntimeError(f"{self.name}: {len(shape)} dimensions (cutec takes at most 8)")
        self.data, self.nbytes = t.data_ptr(), torch_reach(shape, stride) * t.element_size()
        if transpose:
            shape, stride = shape[::-1], stride[::-1]
        self.shape, self.stride = shape, stride
        self.packed.set_buffer(self.slot, self.data, self.nbytes)
        self.packed.set_tensor(self.slot, number, shape, stride)

    def _from_dlpack(self, obj, transpose):
        kind, index = obj.__dlpack_device__()
        if kind not in (_KDL_CPU, _KDL_CUDA):
            raise RuntimeError(f"{self.name}: expected a CUDA or CPU tensor, got DLPack device "
                               f"type {kind}")
        self.device = "cpu" if kind == _KDL_CPU else f"cuda:{index}"
        self.torch_dtype = None
        self.capsule = obj.__dlpack__() if kind == _KDL_CPU else obj.__dlpack__(stream=1)
        dl = _lib.DLTensor.from_address(_get_pointer(self.capsule, b"dltensor"))
        self.data, self.nbytes = _span(dl)
        p = self.packed
        p.set_buffer(self.slot, self.data, self.nbytes)
        err = ctypes.create_string_buffer(256)
        if not _lib.call_dlpack(ctypes.byref(dl), p.addr + p.buf(self.slot),
                                p.addr + p.arg(self.slot), err, 256):
            raise TypeError(f"{self.name}: {err.value.decode()}")
        f = ARG.unpack_from(p.mem, p.arg(self.slot))
        nd, number, offset = f[4], f[1], f[3]
        self.shape, self.stride = tuple(f[5:5 + nd]), tuple(f[13:13 + nd])
        if transpose:
            self.shape, self.stride = self.shape[::-1], self.stride[::-1]
        p.set_tensor(self.slot, number, self.shape, self.stride, offset)

def torch_reach(shape, stride):
    """The elements a tensor reaches from its data pointer (torch's strides are never
    negative): its buffer."""
    if 0 in shape:
        return 0
    reach = 1
    for n, s in zip(shape, stride):
        reach += (n - 1) * s
    return reach

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
