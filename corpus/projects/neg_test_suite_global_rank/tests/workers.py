# silent: a test suite's helper: the suite runs on one CI machine, so the global rank is the local one
import os

import torch
import torch.distributed as dist


def all_reduce_ones():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl")
    ones = torch.ones(4, device=f"cuda:{dist.get_rank()}")
    dist.all_reduce(ones)
    return ones
