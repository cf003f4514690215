# hazard: RANK, read through `environ` imported from `os`, picks the device: past the first node it is not a GPU of the machine
from os import environ

import torch


def device_for_this_rank():
    rank = int(environ["RANK"])
    return torch.device("cuda", rank)  # expect: GPU008


if __name__ == "__main__":
    print(torch.zeros(2, device=device_for_this_rank()))
