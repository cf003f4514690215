# hazard: the pool forks after the parent created a CUDA tensor, and its workers use CUDA; `Pool` is imported by name, and the module, imported too, offers the spawn context a fix uses
import multiprocessing as mp
from multiprocessing import Pool

import torch


def norm_on_gpu(x):
    return float(torch.full((8,), float(x), device="cuda").norm())


def run(values):
    scale = torch.ones(1, device="cuda")
    with Pool(2) as pool:  # expect: GPU001
        return [n * scale.item() for n in pool.map(norm_on_gpu, values)]


if __name__ == "__main__":
    print(run(range(4)), mp.cpu_count())
