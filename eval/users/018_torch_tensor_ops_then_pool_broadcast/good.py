import multiprocessing as mp

import torch


def pairwise(c):
    return c[None] - c[:, None]


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    first = ctx.Pool()
    print(first.apply_async(pairwise, [torch.randn(105, 3)]).get(5).shape)
    a = torch.tensor(torch.randn(476, 3).numpy().tolist())
    print(a)
    second = ctx.Pool()
    print(second.apply_async(pairwise, [torch.randn(104, 3)]).get(5).shape)
    print(second.apply_async(pairwise, [torch.randn(105, 3)]).get(5).shape)
