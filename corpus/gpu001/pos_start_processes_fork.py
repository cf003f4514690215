# hazard: is_available() initialises the driver, then start_processes(start_method="fork") forks ranks that call set_device.
import os

import torch
import torch.multiprocessing as mp


def run_rank(rank, world_size):
    torch.cuda.set_device(rank)
    buf = torch.full((1 << 20,), float(rank), device="cuda")
    print(f"rank {rank}/{world_size}: {buf.mean().item()}")


def main():
    if not torch.cuda.is_available():
        raise RuntimeError("no CUDA device")
    world_size = int(os.environ.get("NPROC", "2"))
    mp.start_processes(run_rank, args=(world_size,), nprocs=world_size, start_method="fork")  # expect: GPU001


if __name__ == "__main__":
    main()
