# hazard: the worker asks for the device's name (creating a context) before narrowing its visible devices, so the narrowing is ignored
import os

import torch
import torch.multiprocessing as mp


def worker(rank):
    print("starting on", torch.cuda.get_device_name(0))
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)  # expect: GPU007
    buffer = torch.empty(1 << 20, device="cuda")
    buffer.fill_(rank)


if __name__ == "__main__":
    mp.spawn(worker, nprocs=4)
