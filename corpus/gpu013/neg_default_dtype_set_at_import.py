# silent: the default dtype is set at the top of the module, so a spawned child sets it again when it imports the module
import multiprocessing as mp

import torch

torch.set_default_dtype(torch.float64)


def grid(n):
    return torch.linspace(0.0, 1.0, n).sum().item()


if __name__ == "__main__":
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(grid, [10, 100]))
