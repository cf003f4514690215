# hazard: pool tasks reach the workers through a pipe, pickled under every start method, fork included: the lambda fails with "attribute lookup <lambda> on __main__ failed"
import multiprocessing as mp

import torch


def load_shard(path):
    return torch.load(path, map_location="cpu")


def main(paths):
    with mp.Pool(4) as pool:
        sizes = pool.map(lambda p: load_shard(p).numel(), paths)  # expect: GPU006
    print(sum(sizes))


if __name__ == "__main__":
    main(["a.pt", "b.pt"])
