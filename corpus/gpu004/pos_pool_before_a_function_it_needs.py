# hazard: a spawn pool starts at import time, so every child starts it again; a function defined after it is what the children call, so putting the rest of the module under a guard would hide it from them (no fix is offered)
import multiprocessing

import torch


def work(x):
    return double_on_gpu(x)


ctx = multiprocessing.get_context("spawn")
with ctx.Pool(2) as pool:  # expect: GPU004
    print(pool.map(work, range(3)))


def double_on_gpu(x):
    return float(torch.ones(2, device="cuda").sum()) * x
