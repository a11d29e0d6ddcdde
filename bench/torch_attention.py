"""PyTorch SDPA on the shapes `cutec bench attention` times (issue 18), for the same device
session (scripts/device-fa2.sh).  Gaussian bf16 inputs in SDPA's (B, H, S, D) layout;
CUDA events, warm-up, median; TFLOP/s = 4 B H S^2 D / t, half of it causal, as cutec and
FlashAttention count.
usage: python3 bench/torch_attention.py [BxHxSxD ...]   (default 8x16x4096x128 16x32x2048x64)"""
import sys

import torch
import torch.nn.functional as F
from torch_timing import median_ms


def one(b, h, s, d, causal, dtype=torch.bfloat16):
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype) for _ in range(3))
    with torch.no_grad():
        ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
    tag = " causal" if causal else ""
    print(f"torch sdpa bf16 B={b} H={h} S={s} D={d}{tag}: {ms:.4f} ms {flops / ms / 1e9:7.1f} TFLOP/s")


shapes = sys.argv[1:] or ["8x16x4096x128", "16x32x2048x64"]
print(f"# {torch.cuda.get_device_name()} torch {torch.__version__}")
for text in shapes:
    b, h, s, d = (int(x) for x in text.split("x"))
    for causal in (False, True):
        one(b, h, s, d, causal)
sys.stdout.flush()
