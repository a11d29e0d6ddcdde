"""A CPU array that hands itself out through DLPack (__dlpack__), made with ctypes alone:
what the tests use where neither PyTorch nor NumPy is installed.  Its capsule is a real
DLManagedTensor, so cutec's DLPack path is the one a framework's tensor takes."""
import ctypes
import struct

from cutec import _lib


class _Managed(ctypes.Structure):
    _fields_ = [("dl_tensor", _lib.DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

# (DLPack code, bits, struct format) by name
DTYPES = {"f32": (2, 32, "f"), "f64": (2, 64, "d"), "i32": (0, 32, "i"), "f16": (2, 16, "e")}


class HostArray:
    def __init__(self, shape, dtype="f32", strides=None, offset=0, values=None):
        self.code, self.bits, self.fmt = DTYPES[dtype]
        self.shape, self.ndim = tuple(shape), len(shape)
        self.strides = tuple(strides) if strides else _row_major(shape)
        self.offset = offset
        count = offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides)) + 1
        self.mem = ctypes.create_string_buffer(max(count, 1) * self.bits // 8)
        if values is not None:
            for i, v in enumerate(values):
                self[self._index(i)] = v

    def _index(self, flat):
        idx = []
        for n in reversed(self.shape):
            idx.append(flat % n)
            flat //= n
        return tuple(reversed(idx))

    def _at(self, idx):
        return (self.offset + sum(i * s for i, s in zip(idx, self.strides))) * self.bits // 8

    def __getitem__(self, idx):
        return struct.unpack_from(self.fmt, self.mem, self._at(idx))[0]

    def __setitem__(self, idx, v):
        struct.pack_into(self.fmt, self.mem, self._at(idx), v)

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU

    def __dlpack__(self, stream=None):
        self._shape = (ctypes.c_int64 * self.ndim)(*self.shape)
        self._strides = (ctypes.c_int64 * self.ndim)(*self.strides)
        m = self._managed = _Managed()
        t = m.dl_tensor
        t.data, t.ndim, t.byte_offset = ctypes.addressof(self.mem), self.ndim, self.offset * self.bits // 8
        t.device.device_type, t.device.device_id = 1, 0
        t.dtype.code, t.dtype.bits, t.dtype.lanes = self.code, self.bits, 1
        t.shape, t.strides = self._shape, self._strides
        return _new_capsule(ctypes.addressof(m), b"dltensor", None)


def _row_major(shape):
    strides, s = [], 1
    for n in reversed(shape):
        strides.append(s)
        s *= n
    return tuple(reversed(strides))
