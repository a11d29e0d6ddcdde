"""PyTorch SDPA's times for the shapes of `cutec bench attention`, which runs this script
(one process for all its shapes) and prints SDPA's TFLOP/s beside cutec's (issue 18).
Gaussian inputs in SDPA's (B, H, S, D) layout, multi-head (K and V with H heads); CUDA
events, warm-up, median.  With --bwd, the backward's time: torch.autograd.grad of SDPA's
output for a gaussian dO (dQ, dK, dV; no accumulation into .grad).  One line per shape and
causality:
    torch BxHxSxD CAUSAL MS          (CAUSAL 0 or 1; MS -1 where a figure was not taken)
With --decode, shapes BxHxGxSxD: one query row (B, H, 1, D) against K and V (B, G, S, D)
(enable_gqa), not causal, one line each: torch BxHxGxSxD 0 MS.
With --rest MS, each timing starts after MS ms of an idle GPU (`cutec bench attention --rest`);
--rows 1 times the non-causal rows only, 2 the causal, 3 both (`--rows`; the others -1).
usage: python3 bench/torch_attention.py [--bwd|--decode] [--rest MS] [--rows 1|2|3] bf16|f16 BxHxSxD [BxHxSxD ...]"""
import sys
import time

import torch
import torch.nn.functional as F
from torch_timing import median_ms


REST_S = 0.0


def rested(fn):
    """fn's median time, after REST_S seconds of an idle GPU"""
    if REST_S:
        torch.cuda.synchronize()
        time.sleep(REST_S)
    return median_ms(fn)


def one(b, h, s, d, causal, dtype):
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype) for _ in range(3))
    with torch.no_grad():
        return rested(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))


def one_bwd(b, h, s, d, causal, dtype):
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype, requires_grad=True) for _ in range(3))
    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    g = torch.randn_like(o)
    return rested(lambda: torch.autograd.grad(o, (q, k, v), g, retain_graph=True))


def one_decode(b, h, g, s, d, dtype):
    q = torch.randn(b, h, 1, d, device="cuda", dtype=dtype)
    k, v = (torch.randn(b, g, s, d, device="cuda", dtype=dtype) for _ in range(2))
    with torch.no_grad():
        return rested(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=g != h))


args = sys.argv[1:]
bwd, decode = args[0] == "--bwd", args[0] == "--decode"
if bwd or decode:
    args = args[1:]
if args[0] == "--rest":
    REST_S = int(args[1]) / 1000.0
    args = args[2:]
rows = 3
if args[0] == "--rows":
    rows = int(args[1])
    args = args[2:]
if decode:
    dtype = torch.float16 if args[0] == "f16" else torch.bfloat16
    print(f"# torch {torch.__version__} SDPA decode on {torch.cuda.get_device_name()}")
    for text in args[1:]:
        try:
            ms = one_decode(*(int(x) for x in text.split("x")), dtype)
        except Exception as e:  # a figure not taken, said why
            print(f"# {text}: {e}")
            ms = -1
        print(f"torch {text} 0 {ms:.5f}")
    sys.exit(0)
dtype = torch.float16 if args[0] == "f16" else torch.bfloat16
print(f"# torch {torch.__version__} SDPA{' backward' if bwd else ''} on {torch.cuda.get_device_name()}")
for text in args[1:]:
    b, h, s, d = (int(x) for x in text.split("x"))
    for causal in (0, 1):
        if not rows >> causal & 1:
            print(f"torch {text} {causal} -1")
            continue
        try:
            ms = (one_bwd if bwd else one)(b, h, s, d, bool(causal), dtype)
        except Exception as e:  # a figure not taken, said why
            print(f"# {text} causal {causal}: {e}")
            ms = -1
        print(f"torch {text} {causal} {ms:.5f}")
    sys.stdout.flush()
