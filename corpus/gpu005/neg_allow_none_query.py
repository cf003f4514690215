# silent: get_start_method(allow_none=True) fixes nothing, so the following call is the first
import multiprocessing

import torch


def infer(rank):
    return torch.randn(2, 2, device=f"cuda:{rank}").sum()


if __name__ == "__main__":
    if multiprocessing.get_start_method(allow_none=True) is None:
        multiprocessing.set_start_method("spawn")
    multiprocessing.Process(target=infer, args=(0,)).start()
