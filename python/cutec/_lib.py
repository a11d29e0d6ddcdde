"""The shared library through ctypes: where it is, the few entry points the package calls,
and ctypes copies of the structures they take, checked against the library's own sizes."""
import ctypes
import ctypes.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _find():
    """The package's own copy, else $CUTEC_LIB, else the system's libcutec.so.0."""
    for path in (os.environ.get("CUTEC_LIB") or None, os.path.join(_HERE, "libcutec.so")):
        if path and os.path.exists(path):
            return path
    found = ctypes.util.find_library("cutec")
    if found:
        return found
    raise ImportError("cutec: libcutec.so not found (reinstall the package with "
                      "`pip install ./python`, or set CUTEC_LIB to the library)")


lib = ctypes.CDLL(_find())


class Buffer(ctypes.Structure):
    """cute_buffer: memory a tensor lives in, with its extent (cutec checks accesses)."""
    _fields_ = [("ptr", ctypes.c_void_p), ("bytes", ctypes.c_size_t),
                ("backend", ctypes.c_int), ("id", ctypes.c_uint64)]


class CallArg(ctypes.Structure):
    """cute_call_arg: a tensor (buffer, offset, dtype, shape, strides) or a scalar."""
    _fields_ = [("kind", ctypes.c_uint8), ("dtype", ctypes.c_uint8),
                ("buf", ctypes.c_void_p),  # a cute_buffer * (an address: cheap to set)
                ("offset", ctypes.c_size_t),
                ("ndim", ctypes.c_int), ("shape", ctypes.c_int64 * 8),
                ("stride", ctypes.c_int64 * 8), ("i", ctypes.c_int64), ("f", ctypes.c_double)]


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    """DLPack's DLTensor (cute_dlpack_tensor)."""
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_B = ctypes.POINTER(Buffer)
_F = ctypes.CFUNCTYPE


class BackendVtable(ctypes.Structure):
    """cute_backend_vtable (cutec/backend.h): the entry points the CPU path copies with."""
    _fields_ = [("version", ctypes.c_int), ("name", ctypes.c_char_p),
                ("supports_op", ctypes.c_void_p), ("compile", ctypes.c_void_p),
                ("module_free", ctypes.c_void_p), ("launch", ctypes.c_void_p),
                ("alloc", _F(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, _B)),
                ("free", _F(None, ctypes.c_void_p, _B)),
                ("upload", _F(ctypes.c_int, ctypes.c_void_p, _B, ctypes.c_size_t,
                              ctypes.c_void_p, ctypes.c_size_t)),
                ("download", _F(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, _B,
                                ctypes.c_size_t, ctypes.c_size_t)),
                ("sync", _F(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)),
                ("error", _F(ctypes.c_char_p, ctypes.c_void_p)),
                ("destroy", ctypes.c_void_p)]


class Backend(ctypes.Structure):
    _fields_ = [("vt", ctypes.POINTER(BackendVtable)), ("self", ctypes.c_void_p)]


def _sig(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, list(argtypes)
    return fn


_vp, _cp, _sz, _err = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p
_arg = ctypes.c_void_p  # the address of a cute_call_arg (python/cutec/_packed.py packs them)
abi_sizeof = _sig("cute_abi_sizeof", _sz, _cp)
status_name = _sig("cute_status_name", _cp, ctypes.c_int)
dtype_parse = _sig("cute_dtype_parse", ctypes.c_bool, _cp, ctypes.POINTER(ctypes.c_int))
runtime_new = _sig("cute_runtime_new", ctypes.c_int, _cp, ctypes.POINTER(_vp), _err, _sz)
runtime_free = _sig("cute_runtime_free", None, _vp)
runtime_backend = _sig("cute_runtime_backend", ctypes.POINTER(Backend), _vp)
call_dlpack = _sig("cute_call_dlpack", ctypes.c_bool, ctypes.POINTER(DLTensor), _vp, _arg,
                   _err, _sz)
gemm_lib_new = _sig("cute_gemm_lib_new", _vp, _vp)
gemm_lib_free = _sig("cute_gemm_lib_free", None, _vp)
ew_lib_new = _sig("cute_ew_lib_new", _vp, _vp)
ew_lib_free = _sig("cute_ew_lib_free", None, _vp)
ew_op_parse = _sig("cute_ew_op_parse", ctypes.c_bool, _cp, ctypes.POINTER(ctypes.c_int))
ew_op_arity = _sig("cute_ew_op_arity", ctypes.c_int, ctypes.c_int)
# every kernel call: one struct (python/cutec/_packed.py), one conversion
call_packed = _sig("cutec_call_packed", ctypes.c_int, _vp)

for _name, _mirror in (("cute_call_arg", CallArg), ("cute_buffer", Buffer),
                       ("cute_dlpack_tensor", DLTensor), ("cute_backend_vtable", BackendVtable)):
    if abi_sizeof(_name.encode()) != ctypes.sizeof(_mirror):
        raise ImportError(f"cutec: this package's {_name} ({ctypes.sizeof(_mirror)} bytes) does "
                          f"not match the library's ({abi_sizeof(_name.encode())}): reinstall it")


def dtype(name):
    """cutec's dtype number for a name ("bf16", "f32", ...)."""
    out = ctypes.c_int()
    if not dtype_parse(name.encode(), ctypes.byref(out)):
        raise ValueError(f"cutec: no dtype {name}")
    return out.value
