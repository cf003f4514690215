# silent: the branch that narrows the visible GPUs returns at once; the CUDA work is on the other branch only
import os

import torch

HAVE_GPU = torch.cuda.is_available()


def choose_device(offload):
    if offload:
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"
        return "cpu"
    return torch.zeros(1, device="cuda").device


if __name__ == "__main__":
    choose_device(offload=True)
