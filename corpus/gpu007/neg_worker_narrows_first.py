# silent: each worker sets its visible device before anything in it touches CUDA, and nothing at module level does
import os

import torch
import torch.multiprocessing as mp


def upscale(rank, frames):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)
    net = torch.nn.Conv2d(3, 3, 3, padding=1).cuda()
    return net(torch.rand(frames, 3, 32, 32, device="cuda"))


if __name__ == "__main__":
    mp.spawn(upscale, args=(4,), nprocs=2)
