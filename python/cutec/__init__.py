"""cutec: CuTe DSL's kernels for PyTorch (and any DLPack producer), through ctypes.

    import torch, cutec
    c = cutec.mm(a, b)                 # a (M,K) @ b (K,N), bf16/f16/f32/f64/int8/fp8
    cutec.mm(a, b, out=c, alpha=2.0, beta=1.0)
    y = cutec.add(x1, x2); cutec.gelu(x, out=y)

CUDA tensors stay where they are (zero-copy: cutec reads their pointers, shapes and
strides) and run on the current PyTorch stream of cuda:0; CPU tensors run on cutec's
interpreter, which checks every access against buffers of its own (their bytes are copied
in, and the output's back).  Wrong dtypes, shapes, devices and strides raise
TypeError/RuntimeError as PyTorch's own operators do.  A call with the dtypes, shapes,
strides and device of an earlier one (torch tensors on the GPU) reuses that call's packed
arguments: it reads only the data pointers and the current stream (python/cutec/_calls.py).
"""
import ctypes

from . import _lib
from . import _calls
from ._calls import kept, new_packed, run_args
from ._packed import EW, GEMM
from ._tensor import Arg

__version__ = "0.1.0"
__all__ = ["mm", "gemm", "elementwise", "add", "sub", "mul", "div", "maximum", "minimum",
           "relu", "gelu", "silu", "exp", "neg", "abs"]


def gemm(A, B, C, alpha=1.0, beta=0.0):
    """C = alpha A B^T + beta C in CuTe's convention: A (M,K), B (N,K), C (M,N), each with a
    unit stride in one dimension.  Returns C."""
    key = _calls.run3(kept.calls, "gemm", A, B, C, alpha, beta)
    if key is not True:  # no call kept for this signature (None: not torch's tensors)
        p = new_packed(GEMM, 0, 3)
        args = [Arg(A, "A", p, 0), Arg(B, "B", p, 1), Arg(C, "C", p, 2)]
        run_args(p, args, args[2:], "cutec.gemm", alpha, beta, key)
    return C


def mm(a, b, *, out=None, alpha=1.0, beta=0.0, out_dtype=None):
    """out = alpha (a @ b) + beta out for a (M,K) and b (K,N), as torch.mm (out new when
    None, of out_dtype or a's dtype)."""
    if out is None:
        out = _mm_out(a, b, out_dtype)
    # b (K,N) is CuTe's B (N,K) with its strides swapped: the same memory, no copy
    key = _calls.run3(kept.calls, "mm", a, b, out, alpha, beta)
    if key is not True:
        return _mm_checked(a, b, out, alpha, beta, out_dtype, key)
    return out


def _mm_out(a, b, out_dtype):
    """torch.mm's new output, for 2-D torch tensors that multiply; None: _mm_checked finds
    what is wrong (or makes it)"""
    try:
        (m, k), (k2, n) = a.shape, b.shape
        if k != k2 or a.dtype != b.dtype or a.device != b.device:
            return None
        return a.new_empty((m, n), dtype=out_dtype or a.dtype)
    except (AttributeError, TypeError, ValueError):
        return None


def _mm_checked(a, b, out, alpha, beta, out_dtype, key):
    p = new_packed(GEMM, 0, 3)
    A, B = Arg(a, "mat1", p, 0), Arg(b, "mat2", p, 1, transpose=True)
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
        out, key = _new_like(A, (m, n), out_dtype), None
    args = [A, B, Arg(out, "out", p, 2)]
    run_args(p, args, args[2:], "cutec.mm", alpha, beta, key)
    return out


def _new_like(a, shape, dtype=None):
    if a.torch_dtype is None:
        raise TypeError("cutec: pass out= for tensors that are not torch.Tensors")
    return a.obj.new_empty(shape, dtype=dtype or a.torch_dtype)


_op_codes = {}


def _op_code(op):
    """cute_ew_op's number of op, and whether it takes two inputs"""
    found = _op_codes.get(op)
    if found is None:
        code = ctypes.c_int()
        if not _lib.ew_op_parse(op.encode(), ctypes.byref(code)):
            raise ValueError(f"cutec.elementwise: no op {op!r}")
        found = _op_codes[op] = (code.value, _lib.ew_op_arity(code.value) == 2)
    return found


def elementwise(op, a, b=None, *, out=None):
    """out = op(a[, b]) for tensors of one shape (no broadcasting); op: add, sub, mul, div,
    max, min, relu, gelu, silu, exp, neg, abs."""
    code, binary = _op_code(op)
    if out is None:
        out = _ew_out(a, b, binary)
    x = b if binary else out  # a unary op's struct has two slots: (a, out, -)
    key = _calls.run3(kept.calls, code, a, x, out, 1.0, 0.0)
    if key is not True:
        return _ew_checked(op, code, binary, a, b, out, key)
    return out


def _ew_out(a, b, binary):
    """a new output like a, for torch tensors of one shape and device; None: _ew_checked
    finds what is wrong (or makes it)"""
    try:
        if binary and (b.shape != a.shape or b.device != a.device):
            return None
        return a.new_empty(a.shape)
    except (AttributeError, TypeError):
        return None


def _ew_checked(op, code, binary, a, b, out, key):
    if binary and b is None:
        raise TypeError(f"cutec.{op}: missing the second tensor")
    n = 3 if binary else 2
    p = new_packed(EW, code, n)
    args = [Arg(a, "input", p, 0)] + ([Arg(b, "other", p, 1)] if binary else [])
    for x in args[1:]:
        _same_shape(op, args[0], x)
    if out is None:
        out = _new_like(args[0], args[0].shape)
    args.append(Arg(out, "out", p, n - 1))
    _same_shape(op, args[0], args[-1])
    run_args(p, args, args[-1:], f"cutec.{op}", key=key)
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
