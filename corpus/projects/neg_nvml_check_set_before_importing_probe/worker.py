"""The NVML check is switched on before the probe is imported, so its question makes no CUDA
context here (imported without it, it would): the forked worker may use CUDA."""
import os

os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"

import multiprocessing as mp  # noqa: E402

import torch  # noqa: E402

from probe import HAS_GPU  # noqa: E402


def encode(batch):
    return torch.as_tensor(batch).cuda().sum().item()


if __name__ == "__main__":
    if HAS_GPU:
        with mp.get_context("fork").Pool(2) as pool:
            print(pool.map(encode, [[1.0, 2.0], [3.0]]))
