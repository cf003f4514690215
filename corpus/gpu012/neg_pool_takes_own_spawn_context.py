# silent: spawn is set on `multiprocess` only (for datasets), but the scoring pool takes its own spawn context from `multiprocessing`, so its workers start fresh interpreters
import multiprocessing

import multiprocess
import torch


def score(seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.rand(1000, generator=g, device="cuda").mean().item()


if __name__ == "__main__":
    multiprocess.set_start_method("spawn")
    print(torch.cuda.get_device_name(0))
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        print(pool.map(score, range(16)))
