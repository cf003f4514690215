# silent: the architecture query runs only on a ROCm platform; on a CUDA host nothing initialises CUDA before the fork.
import multiprocessing as mp

import torch
from vllm.platforms import current_platform

if current_platform.is_rocm():
    ARCH = torch.cuda.get_device_properties("cuda").gcnArchName
else:
    ARCH = None


def score(batch):
    return torch.as_tensor(batch, device="cuda").sum().item()


if __name__ == "__main__":
    with mp.get_context("fork").Pool(2) as pool:
        print(ARCH, pool.map(score, [[1.0], [2.0]]))
