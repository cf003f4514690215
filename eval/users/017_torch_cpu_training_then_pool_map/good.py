from timeit import timeit

import torch
import torch.multiprocessing as mp


def fit_small(_=None):
    net = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.Linear(1024, 1))
    x, y = torch.randn(10, 1024), torch.randn(10, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(100):
        opt.zero_grad()
        ((net(x) - y) ** 2).mean().backward()
        opt.step()


def in_process():
    for _ in range(5):
        fit_small()


def in_pool():
    pool = mp.get_context("spawn").Pool(processes=1)
    result = pool.map(fit_small, [None])
    pool.close()
    pool.join()
    return result


if __name__ == "__main__":
    print(timeit(in_process, number=1))
    print(timeit(in_pool, number=1))
