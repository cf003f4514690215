# hazard: torch.empty(..., pin_memory=True) creates a CUDA context in the parent; the pool's forked workers then move data to the GPU.
from multiprocessing import Pool

import torch


def reduce_on_gpu(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(4096, generator=g).cuda()
    return x.square().mean().item()


def main():
    buffer = torch.empty(64, 1024, pin_memory=True)
    buffer.fill_(0.5)
    with Pool(4) as pool:  # expect: GPU001
        print(pool.map(reduce_on_gpu, range(8)))


if __name__ == "__main__":
    main()
