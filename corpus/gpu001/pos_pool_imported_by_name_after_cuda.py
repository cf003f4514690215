# hazard: the pool forks after the parent moved a tensor to the GPU, and its workers use CUDA; `Pool` is imported by name and nothing in the file names `get_context`, so no fix is offered
from multiprocessing import Pool

import torch


def square_on_gpu(x):
    return float(torch.full((4,), float(x), device="cuda").square().sum())


def main():
    warm = torch.zeros(1).cuda()
    with Pool(2) as pool:  # expect: GPU001
        print(pool.map(square_on_gpu, range(4)), warm.item())


if __name__ == "__main__":
    main()
