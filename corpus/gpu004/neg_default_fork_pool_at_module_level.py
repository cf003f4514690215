# silent: on Linux before Python 3.14 the default start method is fork, and the pool's workers re-import nothing
import multiprocessing

import torch


def words(line):
    return len(line.split())


with multiprocessing.Pool(2) as pool:
    counts = pool.map(words, ["a b", "c d e"])
print(torch.tensor(counts).sum())
