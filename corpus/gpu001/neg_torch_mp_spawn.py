# silent: torch.multiprocessing.spawn always uses the spawn start method, whatever the parent did with CUDA before.
import argparse

import torch
import torch.multiprocessing as mp


def worker(rank, args):
    torch.cuda.set_device(rank)
    data = torch.randn(args.rows, 512, device=f"cuda:{rank}")
    print(f"[gpu {rank}] mean={data.mean().item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    torch.cuda.init()
    ngpus = torch.cuda.device_count()
    mp.spawn(worker, args=(args,), nprocs=ngpus, join=True)


if __name__ == "__main__":
    main()
