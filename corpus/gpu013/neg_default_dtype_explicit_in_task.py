# silent: the task names its dtype on every tensor it makes, so the parent's default does not matter to it
import multiprocessing as mp

import torch


def grid(n):
    return torch.linspace(0.0, 1.0, n, dtype=torch.float64).sum().item()


if __name__ == "__main__":
    torch.set_default_dtype(torch.float64)
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(grid, [10, 100]))
