# silent: the worker narrows its visible GPUs before CUDA starts, so cuda and cuda:0 are its own GPU
import os

import torch
import torch.multiprocessing as mp


def infer(rank):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)
    net = torch.nn.Linear(4, 2).to("cuda:0")
    batch = torch.randn(8, 4).cuda()
    print(net(batch))


if __name__ == "__main__":
    mp.spawn(infer, nprocs=2)
