"""`save_in_background` starts a plain `Process`; its caller never leaves the default fork."""
import multiprocessing

import torch

CUDA_READY = torch.cuda.is_available()


def write_snapshot():
    torch.cuda.synchronize()


def save_in_background():
    multiprocessing.Process(target=write_snapshot).start()  # expect: GPU001
