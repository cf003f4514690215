# hazard: the parent switches torch to double precision at run time; spawned workers start with torch's default (float32) and build their grids in single precision
import multiprocessing as mp

import torch


def grid(n):
    return torch.linspace(0.0, 1.0, n).sum().item()  # expect: GPU013


if __name__ == "__main__":
    torch.set_default_dtype(torch.float64)
    with mp.get_context("spawn").Pool(3) as pool:
        print(pool.map(grid, [10, 100, 1000]))
