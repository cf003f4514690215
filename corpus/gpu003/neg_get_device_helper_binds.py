# silent: the project's `get_device()` helper ends in `torch.cuda.set_device` for a CUDA device, and runs before the group
import os

import torch
import torch.distributed as dist


def _slot():
    return int(os.environ.get("LOCAL_RANK", "0"))


def get_device(name=None):
    if name is None:
        name = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(name)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", _slot())
    if device.type == "cuda":
        torch.cuda.set_device(device)
    return device


def train():
    device = get_device()
    dist.init_process_group("nccl")
    weights = torch.ones(4, device=device)
    dist.all_reduce(weights)


if __name__ == "__main__":
    train()
