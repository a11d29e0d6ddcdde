"""cutec_packed_call (cutec/packed_call.h): one library call in one struct, so that a call
costs one ctypes conversion (the struct's address) instead of one per argument.  A Packed
is filled once per call signature; each call writes the data pointers, the stream and the
scales with one struct.pack_into and calls cutec_call_packed."""
import ctypes
import struct

from . import _lib

TENSORS = 4
GEMM, EW = 1, 2  # cutec_packed_kernel

HEAD = struct.Struct("@4PPdd")   # data[4], stream, alpha, beta: written for every call
_SIG = struct.Struct("@Iiii")     # size, kernel, which, ntensors
BUF = struct.Struct("@PNiQ")      # cute_buffer: ptr, bytes, backend, id
ARG = struct.Struct("@BBPNi8q8qqd")  # cute_call_arg: kind, dtype, buf, offset, ndim, ...
_LIB_AT = HEAD.size + _SIG.size
_BUF_AT = _LIB_AT + ctypes.sizeof(ctypes.c_void_p)
_ARG_AT = _BUF_AT + TENSORS * BUF.size
_ERR_AT = _ARG_AT + TENSORS * ARG.size
SIZE = _ERR_AT + 512
_ZEROS = (0,) * 8

_call = _lib.call_packed


class Packed:
    """One cutec_packed_call in memory of its own.  buf(i) / arg(i): the offsets of tensor
    i's cute_buffer and cute_call_arg in mem; addr: the struct's address."""
    __slots__ = ("mem", "addr")

    def __init__(self, kernel, which, ntensors, lib):
        self.mem = ctypes.create_string_buffer(SIZE)
        self.addr = ctypes.addressof(self.mem)
        _SIG.pack_into(self.mem, HEAD.size, SIZE, kernel, which, ntensors)
        self.set_lib(lib)

    def kernel(self):
        return _SIG.unpack_from(self.mem, HEAD.size)[1]

    def set_lib(self, lib):
        struct.pack_into("@P", self.mem, _LIB_AT, lib or 0)

    @staticmethod
    def buf(i):
        return _BUF_AT + i * BUF.size

    @staticmethod
    def arg(i):
        return _ARG_AT + i * ARG.size

    def set_tensor(self, i, dtype, shape, stride, offset=0):
        """Tensor i's dtype number, shape, strides (elements) and offset (bytes)."""
        ARG.pack_into(self.mem, self.arg(i), 0, dtype, 0, offset, len(shape),
                      *(tuple(shape) + _ZEROS)[:8], *(tuple(stride) + _ZEROS)[:8], 0, 0.0)

    def set_buffer(self, i, ptr, nbytes, backend=0, ident=0):
        BUF.pack_into(self.mem, self.buf(i), ptr, nbytes, backend, ident)

    def run(self, d0, d1, d2, d3, stream, alpha, beta):
        """The call on memory d0..d3 (each tensor's buffer start): cutec's status."""
        HEAD.pack_into(self.mem, 0, d0, d1, d2, d3, stream or 0, alpha, beta)
        return _call(self.addr)

    def error(self):
        return ctypes.string_at(self.addr + _ERR_AT).decode(errors="replace")


def _check_layout():
    """A probe (kernel 0) that the library's struct is the size this module lays out."""
    p = Packed(0, 0, 0, None)
    if p.run(0, 0, 0, 0, 0, 0.0, 0.0) == 0 or "unknown kernel 0" not in p.error():
        raise ImportError(f"cutec: the library's cutec_packed_call is not laid out as this "
                          f"package lays it out ({p.error()}): reinstall the package")


if BUF.size != _lib.abi_sizeof(b"cute_buffer") or ARG.size != _lib.abi_sizeof(b"cute_call_arg"):
    raise ImportError("cutec: the library's cute_buffer or cute_call_arg is not laid out as this "
                      "package packs them: reinstall it")
_check_layout()
