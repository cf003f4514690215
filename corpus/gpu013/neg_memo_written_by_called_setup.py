# silent: the global remembers what this process already set up; the reader compares against it and calls the function that sets it, so a fresh child sets itself up
import multiprocessing as mp

import torch

_APPLIED = None


def apply_precision(mode):
    global _APPLIED
    torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
    _APPLIED = mode


def apply_precision_once(mode):
    if mode != _APPLIED:
        apply_precision(mode)


def score(i):
    apply_precision_once("tf32")
    return (torch.ones(4, device="cuda") * i).sum().item()


if __name__ == "__main__":
    apply_precision("tf32")
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(score, range(4)))
