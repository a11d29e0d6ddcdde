"""A tensor that the package reads as a torch.Tensor on cuda:0 (dtype, shape, stride(),
get_device(), data_ptr(), element_size()) over memory the caller provides: for the kept
calls' test and the overhead bench's --stub run, where there is no GPU (and maybe no
PyTorch)."""


class _Device:
    type, index = "cuda", 0


class _DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


_DTYPES = {}


class TorchLike:
    """A row-major tensor of `shape` at address `ptr`, of torch dtype `dtype_name`
    ("float32", "bfloat16", ...) with elements of `size` bytes"""
    device, untyped_storage = _Device(), None

    def __init__(self, shape, ptr, dtype_name, size):
        self.shape, self._ptr, self._size = tuple(shape), ptr, size
        self._stride = (shape[1], 1) if len(shape) == 2 else (1,)
        self.dtype = _DTYPES.setdefault(dtype_name, _DType(dtype_name))  # one object a dtype

    def stride(self):
        return self._stride

    def data_ptr(self):
        return self._ptr

    def element_size(self):
        return self._size

    def get_device(self):
        return 0


TorchLike.__module__ = "torch.like"  # what python/cutec/_tensor.py takes for torch's
