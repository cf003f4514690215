# silent: a fork-context process re-imports nothing, so creating it in the script body is fine (the child stays on the CPU)
import multiprocessing as mp

import torch


def shard_sizes(n):
    print([len(range(i, n, 4)) for i in range(4)])


worker = mp.get_context("fork").Process(target=shard_sizes, args=(100,))
worker.start()
worker.join()
model = torch.nn.Linear(4, 4).cuda()
