"""`save_in_background` starts a plain `Process`; its one caller switched to spawn first."""
import multiprocessing

import torch

CUDA_READY = torch.cuda.is_available()


def write_snapshot():
    torch.cuda.synchronize()


def save_in_background():
    multiprocessing.Process(target=write_snapshot).start()
