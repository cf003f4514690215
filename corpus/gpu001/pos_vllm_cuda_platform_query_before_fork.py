# On a CUDA host `is_cuda()` holds: the capability query initialises CUDA before the pool forks.
import multiprocessing as mp

import torch
from vllm.platforms import current_platform

if current_platform.is_cuda():
    MAJOR = torch.cuda.get_device_capability()[0]
else:
    MAJOR = 0


def score(batch):
    return torch.as_tensor(batch, device="cuda").sum().item()


if __name__ == "__main__":
    with mp.get_context("fork").Pool(2) as pool:  # expect: GPU001
        print(MAJOR, pool.map(score, [[1.0], [2.0]]))
