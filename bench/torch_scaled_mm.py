"""torch._scaled_mm's times for the shapes of `cutec bench gemm --scale tensor|block`, which
runs this script (one process for all its shapes) and prints its TFLOP/s beside cutec's
(issue 15).  Gaussian inputs rounded to the fp8 dtype, A (M, K) row-major and B (N, K)
row-major passed as B.t() (cuBLASLt's "TN", what _scaled_mm takes), f32 scales on the device,
C of the output dtype; CUDA events, warm-up, median.  Per-tensor scales are timed with
use_fast_accum False (torch's default) and True; block scales (1x128 for A, 128x128 for B,
torch 2.9+ on CUDA 12.9+) with torch's default.  One line per shape and mode:
    torch MxNxK FAST MS        (FAST 0 or 1; MS -1 where a figure was not taken, said why)
usage: python3 bench/torch_scaled_mm.py [--block] e4m3|e5m2 bf16|f16|f32 MxNxK [MxNxK ...]"""
import sys

import torch
from torch_timing import median_ms

DTYPES = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "bf16": torch.bfloat16, "f16": torch.float16,
          "f32": torch.float32}


def operands(m, n, k, dtype):
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(n, k, device="cuda").to(dtype)
    return a, b


def per_tensor(m, n, k, dtype, out, fast):
    a, b = operands(m, n, k, dtype)
    sa, sb = (torch.rand((), device="cuda") + 0.5 for _ in range(2))
    return median_ms(lambda: torch._scaled_mm(a, b.t(), sa, sb, out_dtype=out, use_fast_accum=fast))


def blockwise(m, n, k, dtype, out):
    a, b = operands(m, n, k, dtype)
    kb, nb = (k + 127) // 128, (n + 127) // 128
    # both scale tensors outer-dim-major, as cuBLASLt's VEC128 / BLK128x128 take them: A's
    # (M, K/128) with M contiguous, B's (K/128, N/128) with K/128 contiguous
    sa = (torch.rand(kb, m, device="cuda") + 0.5).t()
    sb = (torch.rand(nb, kb, device="cuda") + 0.5).t()
    try:
        return median_ms(lambda: torch._scaled_mm(a, b.t(), sa, sb, out_dtype=out))
    except Exception as e:  # torch's newer entry point, the scaling named
        F = torch.nn.functional
        if not hasattr(F, "scaled_mm"):
            raise e
        st = F.ScalingType
        return median_ms(lambda: F.scaled_mm(a, b.t(), sa, st.BlockWise1x128, sb, st.BlockWise128x128, output_dtype=out))


args = sys.argv[1:]
block = args[0] == "--block"
if block:
    args = args[1:]
dtype, out = DTYPES[args[0]], DTYPES[args[1]]
print(f"# torch {torch.__version__} _scaled_mm{' (block scales)' if block else ''} on {torch.cuda.get_device_name()}")
for text in args[2:]:
    m, n, k = (int(x) for x in text.split("x"))
    for fast in (0,) if block else (0, 1):
        try:
            ms = blockwise(m, n, k, dtype, out) if block else per_tensor(m, n, k, dtype, out, bool(fast))
        except Exception as e:  # a figure not taken, said why
            print(f"# {text} fast {fast}: {str(e).splitlines()[0][:200]}")
            ms = -1
        print(f"torch {text} {fast} {ms:.5f}")
    sys.stdout.flush()
