"""torch.distributed's NCCL collectives on this host's GPUs: the reference of `cutec bench
all-reduce|reduce-scatter|all-gather`, timed the same way (5 timings of ITERS back-to-back
collectives with CUDA events on rank 0, the median) on the same sizes, in nccl-tests'
convention (bytes of the all-reduce and reduce-scatter send, of the all-gather recv).

    python3 bench/torch_nccl.py all-reduce --dtype bf16 --sizes 8M,128M,512M [--gpus 2]
    torchrun --nproc_per_node 2 bench/torch_nccl.py all-reduce,all-gather --sizes 128M

One process a GPU, as torch.distributed runs: spawned here (torch.multiprocessing), or by
torchrun (its RANK / WORLD_SIZE); several collectives, comma-separated, share the process
group; rank 0 prints."""
import argparse
import os
import statistics

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
          "f64": torch.float64}


def size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def worker(rank, n, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n, device_id=torch.device("cuda", rank))
    for op in args.op.split(","):
        collective(rank, n, op, args)
    dist.destroy_process_group()


def collective(rank, n, op, args):
    dt = DTYPES[args.dtype]
    es = torch.tensor([], dtype=dt).element_size()
    if rank == 0:
        launcher = "torchrun" if "TORCHELASTIC_RUN_ID" in os.environ else "torch.multiprocessing"
        print(f"# torch.distributed {op} over {n} GPUs ({n} processes, {launcher}), NCCL "
              f"{torch.cuda.nccl.version()}, {args.dtype}, {args.iters} back-to-back a timing, median of 5")
        print(f"{'bytes':>12} {'ms':>10} {'algbw GB/s':>10} {'busbw GB/s':>10}")
    factor = 2 * (n - 1) / n if op == "all-reduce" else (n - 1) / n
    for b in (size(s) for s in args.sizes.split(",")):
        total = b // es // n * n
        part = total // n
        big = torch.randn(total, device="cuda", dtype=torch.float32).to(dt)
        small = torch.randn(part, device="cuda", dtype=torch.float32).to(dt)
        if op == "all-reduce":
            call = lambda: dist.all_reduce(big)  # noqa: E731
        elif op == "reduce-scatter":
            call = lambda: dist.reduce_scatter_tensor(small, big)  # noqa: E731
        else:
            call = lambda: dist.all_gather_into_tensor(big, small)  # noqa: E731
        for _ in range(3):
            call()
        times = []
        for _ in range(5):
            torch.cuda.synchronize()
            dist.barrier()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(args.iters):
                call()
            e1.record()
            e1.synchronize()
            times.append(e0.elapsed_time(e1) / args.iters)
        ms = statistics.median(times)
        if rank == 0:
            algbw = b / (ms * 1e6)
            print(f"{b:12d} {ms:10.4f} {algbw:10.1f} {algbw * factor:10.1f}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("op", help="all-reduce, reduce-scatter, all-gather, or several, comma-separated")
    p.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    p.add_argument("--sizes", default="8M,128M,512M")
    p.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    ops = {"all-reduce", "reduce-scatter", "all-gather"}
    if not set(args.op.split(",")) <= ops:
        raise SystemExit(f"torch_nccl.py: {args.op}: the collectives are {', '.join(sorted(ops))}")
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # started by torchrun: one process of the group
        worker(int(os.environ.get("LOCAL_RANK", os.environ["RANK"])), int(os.environ["WORLD_SIZE"]), args)
        return
    if args.gpus < 1:
        raise SystemExit("torch_nccl.py: no GPU")
    mp.spawn(worker, args=(args.gpus, args), nprocs=args.gpus)


if __name__ == "__main__":
    main()
