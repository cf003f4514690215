# silent: the worker sees only its own GPU before loading, so the saved cuda:0 is that GPU
import os

import torch
import torch.multiprocessing as mp


def worker(gpu):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)
    model = torch.jit.load("model.ts")
    print(model(torch.rand(2, 4, device="cuda")))


if __name__ == "__main__":
    mp.spawn(worker, nprocs=4)
