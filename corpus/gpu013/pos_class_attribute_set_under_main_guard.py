# hazard: the main block raises a class attribute that the spawned workers consult; each worker imports the module afresh and reads the class body's value
import multiprocessing as mp

import torch


class Limits:
    max_tokens = 128


def truncate(ids):
    t = torch.tensor(ids)
    return t[: Limits.max_tokens].tolist()  # expect: GPU013


if __name__ == "__main__":
    Limits.max_tokens = 512
    with mp.get_context("spawn").Pool(4) as pool:
        print(pool.map(truncate, [[1, 2, 3]] * 8))
