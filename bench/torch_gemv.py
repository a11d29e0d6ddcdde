"""torch.mv / torch.matmul on the shapes `cutec bench gemv` uses: the PyTorch reference of
issue 17, run in the same device session (scripts/device-gemv.sh).  Medians of CUDA events;
GB/s of A + x + y, as cutec counts them."""
import sys
import torch


from torch_timing import median_ms

# `torch_gemv.py mv-bf16`: only torch.mv in bf16 (a short pass)
only_bf16 = sys.argv[1:] == ["mv-bf16"]
print(f"# {torch.cuda.get_device_name()} torch {torch.__version__}; uniform inputs in [-2, 2)")
for dt in (torch.bfloat16,) if only_bf16 else (torch.bfloat16, torch.float16, torch.float32):
    for m, k in ((8192, 8192), (16384, 4096), (4096, 16384)):
        A = torch.rand(m, k, device="cuda", dtype=dt) * 4 - 2
        x = torch.rand(k, device="cuda", dtype=dt) * 4 - 2
        y = torch.empty(m, device="cuda", dtype=dt)
        ms = median_ms(lambda: torch.mv(A, x, out=y))
        es = A.element_size()
        gbs = (m * k * es + k * es + 2 * m * es) / ms / 1e6
        print(f"torch.mv {str(dt)[6:]:9s} {m}x{k}: {ms:.4f} ms {gbs:8.1f} GB/s")
for dt in () if only_bf16 else (torch.bfloat16, torch.float32):  # the skinny GEMMs of issue 17
    for m, n, k in ((1, 8192, 8192), (8, 8192, 8192), (16, 8192, 8192), (32, 8192, 8192),
                    (64, 8192, 8192), (128, 8192, 8192), (4097, 3, 8191), (3, 5, 100000)):
        A = torch.rand(m, k, device="cuda", dtype=dt) * 4 - 2
        B = torch.rand(n, k, device="cuda", dtype=dt) * 4 - 2
        ms = median_ms(lambda: torch.mm(A, B.t()))
        es = A.element_size()
        gbs = ((m * k + n * k) * es + m * n * es) / ms / 1e6
        print(f"torch.mm {str(dt)[6:]:9s} {m}x{n}x{k}: {ms:.4f} ms {gbs:8.1f} GB/s")
sys.stdout.flush()
