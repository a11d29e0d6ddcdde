"""torch.add on the sizes `cutec bench elementwise` uses: the reference of the elementwise
figures in bench/RESULTS.md (CUDA events, warm-up, median of 30)."""
import torch
from torch_timing import median_ms

print(f"# {torch.cuda.get_device_name()} torch {torch.__version__}")
print(f"{'dtype':6} {'elements':>12} {'ms':>10} {'GB/s':>10}")
for dt in (torch.float32, torch.float16, torch.bfloat16):
    for n in (1 << 20, 1 << 24, 1 << 28):
        x = torch.randn(n, device="cuda", dtype=dt)
        y = torch.randn(n, device="cuda", dtype=dt)
        z = torch.empty_like(x)
        ms = median_ms(lambda: torch.add(x, y, out=z))
        gbs = 3 * n * x.element_size() / ms / 1e6
        print(f"{str(dt).replace('torch.', ''):6} {n:12d} {ms:10.4f} {gbs:10.1f}")
        del x, y, z
    # the strided path: a transposed input
    m = 1 << 14
    x = torch.randn(m, m, device="cuda", dtype=dt).t()
    y = torch.randn(m, m, device="cuda", dtype=dt)
    z = torch.empty(m, m, device="cuda", dtype=dt)
    ms = median_ms(lambda: torch.add(x, y, out=z))
    print(f"{str(dt).replace('torch.', ''):6} {m}x{m} A^T {ms:10.4f} {3 * m * m * x.element_size() / ms / 1e6:10.1f}")
    del x, y, z
