# hazard: the worker function exists only under the main guard; a spawned worker imports the script afresh, skips the guard, and cannot find it ("Can't get attribute 'score'"); the pool then hangs restarting workers
import multiprocessing as mp

import torch

if __name__ == "__main__":

    def score(seed):
        gen = torch.Generator().manual_seed(seed)
        return float(torch.rand(4, generator=gen).sum())

    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        print(pool.map(score, range(8)))  # expect: GPU006
