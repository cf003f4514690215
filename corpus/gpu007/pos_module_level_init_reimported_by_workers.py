# hazard: the module-level torch.cuda.init() runs again in every spawned worker while it imports this script, so each worker's own CUDA_VISIBLE_DEVICES write comes too late and all of them stay on GPU 0
import os

import torch
import torch.multiprocessing as mp

torch.cuda.init()
print("devices:", torch.cuda.device_count())


def upscale(rank, frames):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)  # expect: GPU007
    net = torch.nn.Conv2d(3, 3, 3, padding=1).cuda()
    return net(torch.rand(frames, 3, 32, 32, device="cuda"))


if __name__ == "__main__":
    mp.spawn(upscale, args=(4,), nprocs=2)
