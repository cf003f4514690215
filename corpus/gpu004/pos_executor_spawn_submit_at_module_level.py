# hazard: the executor's spawned workers re-import this module and submit again while they bootstrap
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import torch


def norm_on_gpu(values):
    return float(torch.tensor(values, device="cuda").norm())


rows = [[float(i), float(i + 1)] for i in range(4)]
pool = ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"))  # expect: GPU004
futures = [pool.submit(norm_on_gpu, r) for r in rows]
print([f.result() for f in futures])
