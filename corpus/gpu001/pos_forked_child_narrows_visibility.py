# hazard: the child is forked from a parent that initialised CUDA; narrowing its visible GPUs first cannot help it (GPU001 alone: GPU007 stays silent for a forked child)
import os

import torch
import torch.multiprocessing as mp


def evaluate(rank):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)
    torch.ones(3, device="cuda").sum()


if __name__ == "__main__":
    torch.cuda.init()
    workers = [mp.Process(target=evaluate, args=(r,)) for r in range(2)]
    for w in workers:
        w.start()  # expect: GPU001
