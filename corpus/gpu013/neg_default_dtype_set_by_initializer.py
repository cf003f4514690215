# silent: each worker of the forkserver pool sets torch's default dtype itself in the pool's initializer before it runs a task
import multiprocessing as mp

import torch


def grid(n):
    return torch.linspace(0.0, 1.0, n).sum().item()


if __name__ == "__main__":
    torch.set_default_dtype(torch.float64)
    ctx = mp.get_context("forkserver")
    with ctx.Pool(2, initializer=torch.set_default_dtype, initargs=(torch.float64,)) as pool:
        print(pool.map(grid, [10, 100]))
