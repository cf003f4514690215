"""Imports the probe after the package set its NVML check: the forked worker may still use CUDA."""
import multiprocessing as mp

import torch

from serve.probe import HAS_GPU


def encode(batch):
    return torch.as_tensor(batch).cuda().sum().item()


if __name__ == "__main__":
    if HAS_GPU:
        with mp.get_context("fork").Pool(2) as pool:
            print(pool.map(encode, [[1.0, 2.0], [3.0]]))
