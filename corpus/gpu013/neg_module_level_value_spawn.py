# silent: the global is assigned at module level, so the spawned child's import assigns it the same way
import os

import torch
import torch.multiprocessing as mp

BATCH = int(os.environ.get("BATCH", "32"))


def work(rank):
    torch.cuda.set_device(rank)
    x = torch.randn(BATCH, 8, device="cuda")
    print(x.sum().item())


if __name__ == "__main__":
    mp.spawn(work, nprocs=2)
