"""cutec: CuTe DSL's kernels for PyTorch (and any DLPack producer), through ctypes.

    import torch, cutec
    c = cutec.mm(a, b)                 # a (M,K) @ b (K,N), bf16/f16/f32/f64/int8/fp8
    cutec.mm(a, b, out=c, alpha=2.0, beta=1.0)
    y = cutec.add(x1, x2); cutec.gelu(x, out=y)

CUDA tensors stay where they are (zero-copy: cutec reads their pointers, shapes and
strides) and run on the current PyTorch stream of cuda:0; CPU tensors run on cutec's
interpreter, which checks every access against buffers of its own (their bytes are copied
in, and the output's back).  Wrong dtypes, shapes, devices and strides raise
TypeError/RuntimeError as PyTorch's own operators do.
"""
import ctypes

from . import _lib
from ._runtime import check, error_buffer, on_device, runtime, stream_of
from ._tensor import Arg

__version__ = "0.1.0"
__all__ = ["mm", "gemm", "elementwise", "add", "sub", "mul", "div", "maximum", "minimum",
           "relu", "gelu", "silu", "exp", "neg", "abs"]


def _same_device(what, args):
    devices = {a.device for a in args}
    if len(devices) > 1:
        raise RuntimeError(f"{what}: expected all tensors to be on the same device, but found "
                           f"at least two devices, {' and '.join(sorted(devices))}!")
    return args[0].device


def _new_like(a, shape, dtype=None):
    if a.torch_dtype is None:
        raise TypeError("cutec: pass out= for tensors that are not torch.Tensors")
    import torch
    return torch.empty(shape, dtype=dtype or a.torch_dtype, device=a.obj.device)


def gemm(A, B, C, alpha=1.0, beta=0.0):
    """C = alpha A B^T + beta C in CuTe's convention: A (M,K), B (N,K), C (M,N), each with a
    unit stride in one dimension.  Returns C."""
    return _gemm([Arg(A, "A", 0), Arg(B, "B", 1), Arg(C, "C", 2)], alpha, beta)


def _gemm(args, alpha, beta, what="cutec.gemm"):
    rt = runtime(_same_device(what, args))
    err = error_buffer()
    with on_device(rt, args, outputs=[args[2]]):
        status = _lib.gemm(rt.gemm, 0, args[0].arg, args[1].arg, args[2].arg, alpha, beta,
                           stream_of(args), err, 1024)
    check(status, err, what)
    return args[2].obj


def mm(a, b, *, out=None, alpha=1.0, beta=0.0, out_dtype=None):
    """out = alpha (a @ b) + beta out for a (M,K) and b (K,N), as torch.mm (out new when
    None, of out_dtype or a's dtype)."""
    A, B = Arg(a, "mat1", 0), Arg(b, "mat2", 1, transpose=True)
    sa, sb = A.shape, B.shape
    if len(sa) != 2 or len(sb) != 2:
        raise RuntimeError(f"cutec.mm: expected 2-D tensors, got {len(sa)}-D and {len(sb)}-D")
    (m, k), (n, k2) = sa, sb  # B is b transposed: (N,K)
    if A.torch_dtype != B.torch_dtype:
        raise RuntimeError(f"cutec.mm: expected mat1 and mat2 to have the same dtype, but got: "
                           f"{A.torch_dtype} != {B.torch_dtype}")
    if k != k2:
        raise RuntimeError(f"cutec.mm: mat1 and mat2 shapes cannot be multiplied ({m}x{k} and "
                           f"{k2}x{n})")
    if out is None:
        out = _new_like(A, (m, n), out_dtype)
    # b (K,N) is CuTe's B (N,K) with its strides swapped: the same memory, no copy
    return _gemm([A, B, Arg(out, "out", 2)], alpha, beta, "cutec.mm")


def elementwise(op, a, b=None, *, out=None):
    """out = op(a[, b]) for tensors of one shape (no broadcasting); op: add, sub, mul, div,
    max, min, relu, gelu, silu, exp, neg, abs."""
    code = ctypes.c_int()
    if not _lib.ew_op_parse(op.encode(), ctypes.byref(code)):
        raise ValueError(f"cutec.elementwise: no op {op!r}")
    binary = _lib.ew_op_arity(code.value) == 2
    if binary and b is None:
        raise TypeError(f"cutec.{op}: missing the second tensor")
    args = [Arg(a, "input", 0)] + ([Arg(b, "other", 1)] if binary else [])
    for x in args[1:]:
        _same_shape(op, args[0], x)
    if out is None:
        out = _new_like(args[0], args[0].shape)
    args.append(Arg(out, "out", 2))
    _same_shape(op, args[0], args[-1])
    rt = runtime(_same_device(f"cutec.{op}", args))
    err = error_buffer()
    with on_device(rt, args, outputs=[args[-1]]):
        second = args[1].arg if binary else None
        status = _lib.ew(rt.ew, code.value, args[-1].arg, args[0].arg, second, stream_of(args),
                         err, 1024)
    check(status, err, f"cutec.{op}")
    return out


def _same_shape(op, x, y):
    if x.shape != y.shape:
        raise RuntimeError(f"cutec.{op}: the size of tensor {x.name} {list(x.shape)} must match "
                           f"the size of tensor {y.name} {list(y.shape)} (cutec does not "
                           f"broadcast)")


def _op(name, cname, binary):
    if binary:
        def fn(a, b, *, out=None):
            return elementwise(cname, a, b, out=out)
    else:
        def fn(a, *, out=None):
            return elementwise(cname, a, out=out)
    fn.__name__, fn.__doc__ = name, f"out = {cname}(...) elementwise (cutec.elementwise)"
    return fn


add, sub, mul, div = (_op(n, n, True) for n in ("add", "sub", "mul", "div"))
maximum, minimum = _op("maximum", "max", True), _op("minimum", "min", True)
relu, gelu, silu, exp, neg = (_op(n, n, False) for n in ("relu", "gelu", "silu", "exp", "neg"))
abs = _op("abs", "abs", False)  # noqa: A001 (torch.abs's name)
