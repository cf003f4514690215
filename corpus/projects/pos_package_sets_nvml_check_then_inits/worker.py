"""Imports the model after the package set its NVML check: CUDA is initialised all the same, and the
forked worker uses it."""
import multiprocessing as mp

import torch

from serve.model import HEAD


def encode(batch):
    return HEAD(torch.as_tensor(batch).cuda()).sum().item()


if __name__ == "__main__":
    with mp.get_context("fork").Pool(2) as pool:  # expect: GPU001
        print(pool.map(encode, [[1.0, 2.0, 3.0, 4.0]]))
