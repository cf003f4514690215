# hazard: the start method is set on `multiprocess`, but the pool comes from `multiprocessing`, whose default is still fork, after the parent initialised CUDA.
import multiprocessing

import multiprocess
import torch


def score(seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.rand(1000, generator=g, device="cuda").mean().item()


if __name__ == "__main__":
    multiprocess.set_start_method("spawn")  # expect: GPU012
    print(torch.cuda.get_device_name(0))
    with multiprocessing.Pool(4) as pool:  # expect: GPU001
        print(pool.map(score, range(16)))
