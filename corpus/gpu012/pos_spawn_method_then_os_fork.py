# hazard: set_start_method("spawn") has no say over os.fork(), which copies the parent after it created a CUDA context; the child's CUDA work then fails.
import os

import torch
import torch.multiprocessing as mp


def warm_cache(weights):
    return (weights @ weights.T).sum().item()


if __name__ == "__main__":
    mp.set_start_method("spawn")  # expect: GPU012
    weights = torch.randn(512, 512, device="cuda")
    pid = os.fork()  # expect: GPU001
    if pid == 0:
        print(warm_cache(weights))
        os._exit(0)
    os.waitpid(pid, 0)
