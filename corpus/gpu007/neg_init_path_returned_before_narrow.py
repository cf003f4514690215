# silent: CUDA is initialised only on the path that returns early; the path that narrows the GPUs has not touched the driver yet
import os

import torch


def prepare(gpu_list):
    if not gpu_list:
        torch.cuda.init()
        return torch.device("cuda")
    os.environ["CUDA_VISIBLE_DEVICES"] = gpu_list
    return torch.ones(2, device="cuda").device


if __name__ == "__main__":
    prepare("2,3")
