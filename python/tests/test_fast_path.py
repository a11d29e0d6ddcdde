"""The kept packed calls (python/cutec/_calls.py) without a GPU: tensors that read as
torch's on cuda:0 but live in the interpreter's memory, on an interpreter runtime standing
for cuda:0, so the kernels really run and every access is checked.  A signature's struct is
built once and reused with each call's own pointers (results right for new tensors, no new
entry), another signature gets its own, the current stream is asked for on every call,
cutec's own errors still come back on a kept call, and each thread keeps its own."""
import ctypes
import random
import struct
import threading
import unittest

import cutec
import fast_ext
from cutec import _calls, _lib, _packed, _runtime
from torch_like import TorchLike


class DeviceTensor(TorchLike):
    """An f32 tensor as the package reads a torch.Tensor on cuda:0, in a buffer of the
    interpreter standing for the GPU."""

    def __init__(self, backend, shape, values):
        self.n = shape[0] * (shape[1] if len(shape) == 2 else 1)
        self.be, self.buf = backend, _lib.Buffer()
        vt = backend.vt.contents
        assert vt.alloc(backend.self, 4 * self.n, ctypes.byref(self.buf)) == 0
        host = struct.pack(f"{self.n}f", *values)
        vt.upload(backend.self, ctypes.byref(self.buf), 0, host, 4 * self.n)
        super().__init__(shape, self.buf.ptr, "float32", 4)

    def values(self):
        host = ctypes.create_string_buffer(4 * self.n)
        self.be.vt.contents.download(self.be.self, host, ctypes.byref(self.buf), 0, 4 * self.n)
        return struct.unpack(f"{self.n}f", host.raw)


DeviceTensor.__module__ = TorchLike.__module__  # read as torch's, as TorchLike is

streams = []


def setUpModule():
    global backend
    rt = _runtime.Runtime("cuda:0", backend=b"interp")
    _runtime._runtimes["cuda:0"] = rt
    _runtime._current_stream = lambda index: streams.append(index) or 0
    backend = _lib.runtime_backend(rt.rt).contents


def tearDownModule():
    _runtime._runtimes.pop("cuda:0", None)
    _runtime._current_stream = None


def tensor(*shape, values=None):
    n = shape[0] * (shape[1] if len(shape) == 2 else 1)
    return DeviceTensor(backend, shape, values or [random.uniform(-1, 1) for _ in range(n)])


def product(a, b, m, n, k):
    x, y = a.values(), b.values()
    return [sum(x[i * k + p] * y[p * n + j] for p in range(k)) for i in range(m) for j in range(n)]


class KeptCalls(unittest.TestCase):
    def setUp(self):
        _calls.cached().clear()

    def mm_right(self, m, n, k):
        a, b, c = tensor(m, k), tensor(k, n), tensor(m, n, values=[float("nan")] * (m * n))
        self.assertIs(cutec.mm(a, b, out=c), c)
        for got, want in zip(c.values(), product(a, b, m, n, k)):
            self.assertAlmostEqual(got, want, delta=1e-4 * (1 + abs(want)))

    def test_one_struct_per_signature(self):
        self.mm_right(9, 12, 10)
        (call,) = _calls.cached().values()
        del streams[:]
        self.mm_right(9, 12, 10)  # new tensors, the same signature: the kept struct
        self.assertEqual(list(_calls.cached().values()), [call])
        self.assertEqual(streams, [0], "the current stream, asked for on the call")
        self.mm_right(9, 13, 10)  # another signature
        self.assertEqual(len(_calls.cached()), 2)

    def test_elementwise(self):
        for _ in range(2):
            x, y, out = tensor(33), tensor(33), tensor(33)
            cutec.add(x, y, out=out)
            self.assertEqual(out.values(), tuple(struct.unpack("33f", struct.pack(
                "33f", *(p + q for p, q in zip(x.values(), y.values()))))))
            cutec.relu(x, out=out)
            self.assertEqual(out.values(), tuple(max(v, 0.0) for v in x.values()))
        self.assertEqual(len(_calls.cached()), 2)

    def test_errors_of_a_kept_call(self):
        a, b, c = tensor(8, 8), tensor(8, 8), tensor(8, 8)
        cutec.mm(a, b, out=c)
        self.assertEqual(len(_calls.cached()), 1)
        with self.assertRaisesRegex(RuntimeError, "cutec.mm: gemm: alpha .* must be finite"):
            cutec.mm(a, b, out=c, alpha=float("inf"))

    def test_each_thread_its_own(self):
        self.mm_right(8, 8, 8)
        seen = []
        worker = threading.Thread(target=lambda: (self.mm_right(8, 8, 8),
                                                  seen.append(len(_calls.cached()))))
        worker.start()
        worker.join()
        self.assertEqual(seen, [1])
        self.assertEqual(len(_calls.cached()), 1)


class KeptCallsInPython(KeptCalls):
    """The same with the hot path in Python (a package built without cutec._fast)"""
    run3 = staticmethod(_calls.run3_python)

    @classmethod
    def setUpClass(cls):
        cls.saved, _calls.run3 = _calls.run3, cls.run3

    @classmethod
    def tearDownClass(cls):
        _calls.run3 = cls.saved


class KeptCallsInC(KeptCallsInPython):
    """The same with the hot path in C (python/cutec/_fast.c, compiled for this run)"""

    @classmethod
    def setUpClass(cls):
        fast = fast_ext.build()
        if fast is None:
            raise unittest.SkipTest("no Python headers or no C compiler: cutec._fast not built")
        fast.init(ctypes.cast(_lib.call_packed, ctypes.c_void_p).value, _packed.SIZE)
        cls.run3 = staticmethod(fast.run3)
        super().setUpClass()

    def test_not_torch_tensors(self):
        """what is not a torch tensor goes to the slow path (None), a kept signature runs
        (True), a new one comes back as the key the slow path keeps the call under"""
        self.assertIsNone(_calls.run3({}, "mm", object(), 1, [], 1.0, 0.0))
        a, b, c = tensor(4, 4), tensor(4, 4), tensor(4, 4)
        key = _calls.run3({}, "mm", a, b, c, 1.0, 0.0)
        self.assertEqual(key, _calls.run3_python({}, "mm", a, b, c, 1.0, 0.0))
        cutec.mm(a, b, out=c)
        self.assertIs(_calls.run3(_calls.cached(), "mm", a, b, c, 1.0, 0.0), True)
        with self.assertRaises(TypeError):
            _calls.run3(_calls.cached(), "mm", a, b, c, "two", 0.0)


if __name__ == "__main__":
    unittest.main()
