# hazard: asking for the start method without allow_none fixes it to the default, so switching to spawn right after raises
import multiprocessing

import torch


def infer(rank):
    torch.cuda.set_device(rank)
    return torch.randn(2, 2, device="cuda").sum()


if __name__ == "__main__":
    if multiprocessing.get_start_method() != "spawn":
        multiprocessing.set_start_method("spawn")  # expect: GPU005(error)
    procs = [multiprocessing.Process(target=infer, args=(r,)) for r in range(2)]
    for p in procs:
        p.start()
