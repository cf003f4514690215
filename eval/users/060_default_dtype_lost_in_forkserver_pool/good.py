import torch
from torch import multiprocessing as mp


def energy(i):
    x = torch.linspace(0, 1, 100)
    return i, x.dtype, (x ** 2).sum().item()


if __name__ == "__main__":
    torch.set_default_dtype(torch.float64)
    ctx = mp.get_context("forkserver")
    with ctx.Pool(initializer=torch.set_default_dtype, initargs=(torch.float64,)) as pool:
        for i, dtype, value in pool.map(energy, range(3)):
            print(i, dtype, value)
