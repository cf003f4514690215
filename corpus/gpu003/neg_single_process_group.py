# silent: world_size=1: the only rank belongs on GPU 0
"""A one-process NCCL group for a unit test: rank 0 of 1 on GPU 0 is correct."""
import tempfile

import torch
import torch.distributed as dist


def init_single_rank():
    store = tempfile.mktemp()
    dist.init_process_group("nccl", init_method=f"file://{store}", world_size=1, rank=0)
    tensor = torch.ones(4, device="cuda")
    dist.all_reduce(tensor)
    return tensor


if __name__ == "__main__":
    init_single_rank()
