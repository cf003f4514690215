# hazard: the narrowing branch returns after the driver was initialised, and the caller then uses CUDA with the GPUs it saw first
import os

import torch

HAVE_GPU = torch.cuda.is_available()


def choose_device(second_card):
    if second_card:
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"  # expect: GPU007
        return "cuda"
    return "cpu"


if __name__ == "__main__":
    device = choose_device(second_card=True)
    torch.zeros(4, device=device).sum()
