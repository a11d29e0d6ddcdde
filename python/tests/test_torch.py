"""cutec on torch.Tensors on the GPU: GEMM in every dtype the library has against torch,
elementwise ops, the current stream, zero-copy outputs, and PyTorch-style errors.  Skips
(visibly) where PyTorch or a GPU is missing."""
import unittest

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    torch, HAVE_GPU = None, False

import cutec

REASON = "no PyTorch" if torch is None else "no GPU"


def reference(a, b):
    return (a.double() @ b.double())


@unittest.skipUnless(HAVE_GPU, REASON)
class Mm(unittest.TestCase):
    def check(self, dtype, out_dtype=None, tol=2.0 ** -8, m=333, n=257, k=512):
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", generator=g).to(dtype)
        b = torch.randn(k, n, device="cuda", generator=g).to(dtype)
        c = cutec.mm(a, b, out_dtype=out_dtype)
        torch.cuda.synchronize()
        want = reference(a, b)
        scale = (a.double().abs() @ b.double().abs())
        err = ((c.double() - want).abs() / scale.clamp_min(1e-30)).max().item()
        self.assertLess(err, tol, f"{dtype} -> {c.dtype}: {err}")
        return c

    def test_bf16_matches_torch_mm(self):
        a = torch.randn(512, 384, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(384, 256, device="cuda", dtype=torch.bfloat16)
        c, want = cutec.mm(a, b), torch.mm(a, b)
        torch.cuda.synchronize()
        self.assertEqual(c.dtype, torch.bfloat16)
        self.assertTrue(torch.allclose(c.float(), want.float(), rtol=2e-2, atol=2e-2))

    def test_every_dtype(self):
        self.check(torch.float16)
        self.check(torch.bfloat16)
        self.check(torch.bfloat16, out_dtype=torch.float32, tol=1e-5)
        self.check(torch.float32, tol=1e-5)
        self.check(torch.float64, tol=1e-12)
        for f8 in ("float8_e4m3fn", "float8_e5m2"):
            if hasattr(torch, f8):
                self.check(getattr(torch, f8), out_dtype=torch.float32, tol=1e-5)

    def test_int8(self):
        a = torch.randint(-128, 128, (96, 64), device="cuda", dtype=torch.int8)
        b = torch.randint(-128, 128, (64, 80), device="cuda", dtype=torch.int8)
        c = cutec.mm(a, b, out_dtype=torch.int32)
        torch.cuda.synchronize()
        # the exact product in int64 on the CPU (CUDA has no int64 matmul)
        self.assertTrue(torch.equal(c.cpu().long(), a.cpu().long() @ b.cpu().long()))

    def test_out_alpha_beta_zero_copy(self):
        a, b = torch.randn(64, 32, device="cuda"), torch.randn(32, 48, device="cuda")
        out = torch.randn(64, 48, device="cuda")
        before, ptr = out.clone(), out.data_ptr()
        self.assertIs(cutec.mm(a, b, out=out, alpha=2.0, beta=-1.0), out)
        torch.cuda.synchronize()
        self.assertEqual(out.data_ptr(), ptr)
        self.assertTrue(torch.allclose(out, 2 * (a @ b) - before, rtol=1e-4, atol=1e-4))

    def test_current_stream(self):
        s = torch.cuda.Stream()
        a, b = torch.randn(256, 256, device="cuda"), torch.randn(256, 256, device="cuda")
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            c = cutec.mm(a, b)
        s.synchronize()
        self.assertTrue(torch.allclose(c, a @ b, rtol=1e-4, atol=1e-4))

    def test_errors(self):
        a = torch.randn(8, 16, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "shapes cannot be multiplied"):
            cutec.mm(a, torch.randn(8, 16, device="cuda"))
        with self.assertRaisesRegex(RuntimeError, "same dtype"):
            cutec.mm(a, torch.randn(16, 8, device="cuda", dtype=torch.float16))
        with self.assertRaisesRegex(RuntimeError, "same device"):
            cutec.mm(a, torch.randn(16, 8))
        with self.assertRaisesRegex(RuntimeError, "stride"):
            cutec.mm(torch.randn(8, 32, device="cuda")[:, ::2], torch.randn(16, 8, device="cuda"))
        with self.assertRaisesRegex(TypeError, "mat1 must be a Tensor"):
            cutec.mm([[1.0]], torch.randn(1, 1, device="cuda"))
        with self.assertRaisesRegex(TypeError, "does not take dtype"):
            cutec.mm(a.bool(), a.t().bool())


@unittest.skipUnless(HAVE_GPU, REASON)
class Elementwise(unittest.TestCase):
    def test_ops_against_torch(self):
        x = torch.randn(1000, 257, device="cuda", dtype=torch.bfloat16)
        y = torch.randn(1000, 257, device="cuda", dtype=torch.bfloat16)
        pairs = [(cutec.add(x, y), x + y), (cutec.mul(x, y), x * y),
                 (cutec.relu(x), torch.relu(x)), (cutec.gelu(x), torch.nn.functional.gelu(x)),
                 (cutec.silu(x), torch.nn.functional.silu(x))]
        torch.cuda.synchronize()
        for got, want in pairs:
            self.assertTrue(torch.allclose(got.float(), want.float(), rtol=2e-2, atol=2e-2))

    def test_strided_views(self):
        x = torch.randn(64, 128, device="cuda")[:, ::2]
        out = torch.empty(64, 64, device="cuda")
        cutec.neg(x, out=out)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(out, -x))

    def test_errors(self):
        x = torch.randn(4, 4, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "must match"):
            cutec.add(x, torch.randn(4, 5, device="cuda"))
        with self.assertRaisesRegex(RuntimeError, "same device"):
            cutec.add(x, torch.randn(4, 4))


if __name__ == "__main__":
    unittest.main()
