# silent: the class attribute is changed before a pool that forks, so its workers share the parent's memory and read the new value
import multiprocessing as mp

import torch


class Limits:
    max_tokens = 128


def truncate(ids):
    return torch.tensor(ids)[: Limits.max_tokens].tolist()


if __name__ == "__main__":
    Limits.max_tokens = 512
    with mp.get_context("fork").Pool(2) as pool:
        print(pool.map(truncate, [[1, 2, 3]] * 4))
