# silent: the module-level model stays on the CPU and each worker copies it to its own GPU before use.
import copy

import torch
import torch.multiprocessing as mp
from torch import nn

BASE = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10)).eval()


def infer(rank, batches_per_rank):
    device = torch.device("cuda", rank)
    torch.cuda.set_device(device)
    local = copy.deepcopy(BASE).to(device)
    for _ in range(batches_per_rank):
        x = torch.randn(64, 128, device=device)
        with torch.no_grad():
            local(x)
    print(f"rank {rank} done")


if __name__ == "__main__":
    mp.spawn(infer, args=(50,), nprocs=torch.cuda.device_count())
