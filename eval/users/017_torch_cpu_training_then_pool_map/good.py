from timeit import timeit

import torch
import torch.multiprocessing as mp


def cpu_run(_=None):
    net = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.Linear(1024, 1))
    x, y = torch.randn(10, 1024), torch.randn(10, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(100):
        opt.zero_grad()
        ((net(x) - y) ** 2).mean().backward()
        opt.step()


def sequential():
    for _ in range(5):
        cpu_run()


def pooled():
    pool = mp.get_context("spawn").Pool(processes=1)
    result = pool.map(cpu_run, [None])
    pool.close()
    pool.join()
    return result


if __name__ == "__main__":
    print(timeit(sequential, number=1))
    print(timeit(pooled, number=1))
