"""PyTorch's times for the row-reduction problems of `cutec bench softmax|log-softmax|rmsnorm|
layernorm|cross-entropy|sum|mean|amax|amin|prod`, which runs this script (one process for all its shapes) and prints
its figures beside cutec's and the device copy's.  Gaussian inputs of the same shape and
dtype (torch's own generator); CUDA events, warm-up, median.  One line per shape:
    torch MxN EAGER_MS COMPILED_MS      (-1 where a figure was not taken)
usage: python3 bench/torch_rows.py OP DTYPE forward|backward|dim0 MxN [MxN ...]
(dim0: sum..prod over the first dimension, torch.sum(x, 0) and the others)
torch.compile is tried only with CUTEC_TORCH_COMPILE=1 (each shape compiles anew)."""
import os
import sys

import torch
import torch.nn.functional as F
from torch_timing import median_ms


def forward_fn(op, n, eps=1e-5, dim=-1):
    """the op's forward as a function of (x, w, b, labels); dim: the plain reductions'"""
    if op == "softmax":
        return lambda x, w, b, y: torch.softmax(x, -1)
    if op == "log-softmax":
        return lambda x, w, b, y: torch.log_softmax(x, -1)
    if op == "rmsnorm":
        return lambda x, w, b, y: F.rms_norm(x, (n,), w, eps)
    if op == "layernorm":
        return lambda x, w, b, y: F.layer_norm(x, (n,), w, b, eps)
    if op in ("sum", "mean", "amax", "amin", "prod"):
        f = getattr(torch, op)
        return lambda x, w, b, y: f(x, dim)
    return lambda x, w, b, y: F.cross_entropy(x, y, reduction="none")


def problem(op, dtype, m, n, backward, compiled, dim=-1):
    x = torch.randn(m, n, device="cuda", dtype=dtype, requires_grad=backward)
    w = torch.randn(n, device="cuda", dtype=dtype, requires_grad=backward)
    b = torch.randn(n, device="cuda", dtype=dtype, requires_grad=backward)
    labels = torch.randint(0, n, (m,), device="cuda")
    f = forward_fn(op, n, dim=dim)
    if compiled:
        f = torch.compile(f)
    if not backward:
        with torch.no_grad():
            return median_ms(lambda: f(x, w, b, labels))
    if op == "cross-entropy":  # forward and backward together, as cutec fuses them
        return median_ms(lambda: torch.autograd.grad(f(x, w, b, labels).mean(), (x,)))
    y = f(x, w, b, labels)
    dy = torch.randn_like(y)
    wrt = (x,) if op in ("softmax", "log-softmax") else (x, w) if op == "rmsnorm" else (x, w, b)
    return median_ms(lambda: torch.autograd.grad(y, wrt, dy, retain_graph=True))


def main():
    op, dt, direction = sys.argv[1], sys.argv[2], sys.argv[3]
    dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]
    compile_too = os.environ.get("CUTEC_TORCH_COMPILE") == "1"
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__}", flush=True)
    for shape in sys.argv[4:]:
        m, n = (int(v) for v in shape.split("x"))
        times = []
        for compiled in (False, True):
            if compiled and not compile_too:
                times.append(-1.0)
                continue
            try:
                times.append(problem(op, dtype, m, n, direction == "backward", compiled, 0 if direction == "dim0" else -1))
            except Exception as e:  # a figure not taken is said, not fatal
                print(f"# {shape} {'compiled' if compiled else 'eager'}: {type(e).__name__}: {e}", flush=True)
                times.append(-1.0)
            torch.cuda.empty_cache()
        print(f"torch {shape} {times[0]:.5f} {times[1]:.5f}", flush=True)


if __name__ == "__main__":
    main()
