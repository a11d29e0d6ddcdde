"""PyTorch's unfused HSTU attention for `cutec bench hstu`, which runs this script and prints
its time beside cutec's: S = Q K^T + RAB, P = silu(S), (causal) P's upper triangle set to 0
(keys j > query i), O = P V, in the inputs' dtype (PyTorch's matmuls accumulate in f32).
Gaussian inputs, Q, K, V in (B, H, S, D), RAB (B, H, Sq, Sk); CUDA events, warm-up, median.
One line per causality:
    torch BxHxSqxSkxD CAUSAL MS          (CAUSAL 0 or 1; MS -1 where a figure was not taken)
usage: python3 bench/torch_hstu.py bf16|f16 BxHxSqxSkxD"""
import sys

import torch
import torch.nn.functional as F
from torch_timing import median_ms


def one(b, h, sq, sk, d, causal, dtype):
    q = torch.randn(b, h, sq, d, device="cuda", dtype=dtype)
    k, v = (torch.randn(b, h, sk, d, device="cuda", dtype=dtype) for _ in range(2))
    rab = torch.randn(b, h, sq, sk, device="cuda", dtype=dtype)
    keep = torch.ones(sq, sk, device="cuda", dtype=torch.bool).tril() if causal else None

    def hstu():
        p = F.silu(torch.matmul(q, k.transpose(-1, -2)) + rab)
        if keep is not None:
            p = p.masked_fill(~keep, 0)
        return torch.matmul(p, v)

    with torch.no_grad():
        return median_ms(hstu, iters=10)


dtype = torch.float16 if sys.argv[1] == "f16" else torch.bfloat16
text = sys.argv[2]
print(f"# torch {torch.__version__} unfused HSTU (matmul + rab, silu, tril mask, matmul) on "
      f"{torch.cuda.get_device_name()}")
for causal in (0, 1):
    try:
        ms = one(*(int(x) for x in text.split("x")), bool(causal), dtype)
    except Exception as e:  # a figure not taken, said why
        print(f"# {text} causal {causal}: {e}")
        ms = -1
    torch.cuda.empty_cache()
    print(f"torch {text} {causal} {ms:.5f}")
