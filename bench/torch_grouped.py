"""torch._grouped_mm's times for `cutec bench gemm --groups G --tokens T --sizes S`, which runs
this script (one process for all its sizes) and prints its rate beside the loop of cuBLAS
calls and cutec's grouped kernel (issue 15).  The groups' M come from cutec (its seeded
splitmix64 draw, src/cli/gemm_grouped.c), passed here, not drawn again.  The MoE forward's
form: A stacked (sum of M, K) row-major, offs the int32 end of each group's rows, B (G, N, K)
row-major passed transposed as (G, K, N) (each group's B K-major, as cutec's), C (sum of M, N)
of the output dtype.  Gaussian inputs rounded to the dtype; before the timing, rows of each
group sampled against float64 (error relative to the sum of |terms|); CUDA events, warm-up,
median (torch_timing.median_ms).  One line per size:
    torch_grouped NxK MS CHECK     (CHECK ok or WRONG; MS -1 where no figure was taken,
                                    a '#' line says why)
usage: python3 bench/torch_grouped.py bf16|f16|f32 bf16|f16|f32 M1,M2,... NxK [NxK ...]"""
import sys

ROWS = 16  # rows of each group checked


def skip(why, sizes):
    print(f"# torch._grouped_mm: skipped: {why}")
    for text in sizes:
        print(f"torch_grouped {text} -1 skipped")


def check(torch, a, b, out, ms, dtype_out):
    """the worst error of ROWS rows of each group against float64, and whether it is within the
    tolerance: 2^-10 of the sum of |terms| plus C's rounding"""
    tol = 2.0**-10 + {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11}.get(dtype_out, 0.0)
    worst, start = 0.0, 0
    for g, m in enumerate(ms):
        if m:
            rows = torch.randint(start, start + m, (min(ROWS, m),), device="cuda")
            x, w = a[rows].double(), b[g].double()
            ref, mag = x @ w.t(), x.abs() @ w.abs().t()
            err = ((out[rows].double() - ref).abs() / mag.clamp_min(1e-300)).max().item()
            worst = max(worst, err)
        start += m
    return worst, worst <= tol


def main(args):
    dtype_name, out_name, ms_text, sizes = args[0], args[1], args[2], args[3:]
    try:
        import torch
        from torch_timing import median_ms
    except ImportError as e:
        return skip(f"no torch ({e})", sizes)
    if not torch.cuda.is_available():
        return skip("torch sees no GPU", sizes)
    if not hasattr(torch, "_grouped_mm"):
        return skip(f"torch {torch.__version__} has no _grouped_mm", sizes)
    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    if dtype_name not in dtypes or out_name not in dtypes:
        return skip(f"{dtype_name} -> {out_name}: the script takes bf16, f16, f32", sizes)
    dtype, out_dtype = dtypes[dtype_name], dtypes[out_name]
    ms = [int(m) for m in ms_text.split(",")]
    offs = torch.tensor(ms, device="cuda", dtype=torch.int64).cumsum(0).to(torch.int32)
    print(f"# torch {torch.__version__} _grouped_mm on {torch.cuda.get_device_name()}: {len(ms)} groups, "
          f"{sum(ms)} rows, A (rows, K) row-major, B (G, N, K) passed as (G, K, N), offs int32")
    torch.manual_seed(0)
    for text in sizes:
        n, k = (int(v) for v in text.split("x"))
        try:
            a = torch.randn(sum(ms), k, device="cuda").to(dtype)
            b = torch.randn(len(ms), n, k, device="cuda").to(dtype)
            bt = b.transpose(-2, -1)

            def call():
                return torch._grouped_mm(a, bt, offs=offs, out_dtype=out_dtype)

            worst, ok = check(torch, a, b, call(), ms, out_dtype)
            t = median_ms(call)
            print(f"# {text}: largest error {worst:.3g} of the sum of |terms| ({'ok' if ok else 'WRONG'})")
            print(f"torch_grouped {text} {t:.5f} {'ok' if ok else 'WRONG'}")
            del a, b, bt
        except Exception as e:  # a figure not taken, said why
            print(f"# torch._grouped_mm: skipped at {text}: {str(e).splitlines()[0][:200]}")
            print(f"torch_grouped {text} -1 skipped")
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__.split("usage: ")[1])
    main(sys.argv[1:])
