import multiprocessing as mp
import os

os.environ.setdefault("NVTE_TORCH_COMPILE", "0")

import torch
import transformer_engine.pytorch as te


def run_rank(rank):
    torch.cuda.set_device(rank)
    layer = te.Linear(1024, 1024).cuda()
    out = layer(torch.randn(16, 1024, device="cuda"))
    print(rank, out.float().norm().item())


if __name__ == "__main__":
    workers = [mp.Process(target=run_rank, args=(r,)) for r in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
