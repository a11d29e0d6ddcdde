"""cutec's Python package on the CPU interpreter (no GPU, no PyTorch): GEMM and elementwise
ops on DLPack tensors against Python's own arithmetic, and the errors of wrong dtypes,
shapes and strides."""
import random
import unittest

import cutec
from host_array import HostArray


def randoms(n):
    return [random.uniform(-1, 1) for _ in range(n)]


class Gemm(unittest.TestCase):
    def test_against_python(self):
        m, n, k = 7, 12, 9
        a = HostArray((m, k), values=randoms(m * k))
        b = HostArray((n, k), strides=(1, n), values=randoms(n * k))  # N contiguous
        c = HostArray((m, n), values=randoms(m * n))
        c0 = {(i, j): c[i, j] for i in range(m) for j in range(n)}
        cutec.gemm(a, b, c, alpha=2.0, beta=-1.0)
        for i in range(m):
            for j in range(n):
                want = 2 * sum(a[i, p] * b[j, p] for p in range(k)) - c0[i, j]
                self.assertAlmostEqual(c[i, j], want, delta=1e-4 * (1 + abs(want)))

    def test_shapes_that_do_not_multiply(self):
        a, b, c = HostArray((4, 8)), HostArray((4, 6)), HostArray((4, 4))
        with self.assertRaisesRegex(RuntimeError, "K mismatch"):
            cutec.gemm(a, b, c)

    def test_no_unit_stride(self):
        a = HostArray((4, 8), strides=(16, 2))
        with self.assertRaisesRegex(RuntimeError, "cutec.gemm: .*stride"):
            cutec.gemm(a, HostArray((4, 8)), HostArray((4, 4)))

    def test_not_a_tensor(self):
        with self.assertRaisesRegex(TypeError, "A must be a Tensor"):
            cutec.gemm([[1.0]], HostArray((1, 1)), HostArray((1, 1)))


class Elementwise(unittest.TestCase):
    def test_binary_and_unary(self):
        x, y = HostArray((5, 33), values=randoms(165)), HostArray((5, 33), values=randoms(165))
        out = HostArray((5, 33), values=[float("nan")] * 165)
        cutec.add(x, y, out=out)
        self.assertTrue(all(abs(out[i, j] - (x[i, j] + y[i, j])) < 1e-6
                            for i in range(5) for j in range(33)))
        cutec.relu(x, out=out)
        self.assertTrue(all(out[i, j] == max(x[i, j], 0.0) for i in range(5) for j in range(33)))

    def test_shape_mismatch(self):
        with self.assertRaisesRegex(RuntimeError, r"size of tensor input \[5, 3\] must match"):
            cutec.add(HostArray((5, 3)), HostArray((5, 4)), out=HostArray((5, 3)))

    def test_dtype_mismatch(self):
        with self.assertRaises(RuntimeError):
            cutec.add(HostArray((4,)), HostArray((4,), "i32"), out=HostArray((4,)))

    def test_unknown_op(self):
        with self.assertRaisesRegex(ValueError, "no op 'tanhh'"):
            cutec.elementwise("tanhh", HostArray((4,)), out=HostArray((4,)))

    def test_out_needed_without_torch(self):
        with self.assertRaisesRegex(TypeError, "pass out="):
            cutec.neg(HostArray((4,)))


if __name__ == "__main__":
    unittest.main()
