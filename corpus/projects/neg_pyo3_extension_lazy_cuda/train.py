"""Imports the extension, which touches no GPU at import, forks the pool, and only then asks the
extension for a context in the parent."""
import multiprocessing as mp

import fastops
import torch


def score(i):
    return float(torch.ones(4, device="cuda").sum()) + i


if __name__ == "__main__":
    with mp.Pool(2) as pool:
        print(pool.map(score, range(4)))
    print("extension on GPU", fastops.open_ordinal())
