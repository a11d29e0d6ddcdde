"""torch._int_mm's TOPS for the s8 shapes of `cutec bench gemm --dtype s8 --layout tn`
(issue 13: s8 x s8 -> s32 against torch's own int8 GEMM).  Uniform integers in [-128, 127]
as cutec's inputs, A (M, K) row-major and B (N, K) row-major passed as B.t() (both K-major:
cutec's "tn"), C int32; CUDA events, warm-up, median.  One line per shape:
    torch MxNxK MS TOPS        (a shape torch refuses: a line starting with #, saying why)
usage: python3 bench/torch_int_mm.py MxNxK [MxNxK ...]"""
import sys

import torch
from torch_timing import median_ms

print(f"# torch {torch.__version__} _int_mm on {torch.cuda.get_device_name()}")
for text in sys.argv[1:]:
    m, n, k = (int(x) for x in text.split("x"))
    a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
    b = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda")
    try:
        c = torch._int_mm(a, b.t())
        # a spot check against float64 on a corner (exact: |terms| < 2^53)
        ref = a[:64].double() @ b[:64].double().t()
        if not torch.equal(c[:64, :64].double(), ref):
            print(f"# {text}: torch._int_mm differs from float64")
            continue
        ms = median_ms(lambda: torch._int_mm(a, b.t()))
    except Exception as e:  # a figure not taken, said why
        print(f"# {text}: {str(e).splitlines()[0][:200]}")
        continue
    print(f"torch {text} {ms:.4f} {2.0 * m * n * k / ms / 1e9:.1f}")
