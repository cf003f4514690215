# hazard: RANK counts processes across all nodes; on the second node it names a GPU that machine lacks
import os

import torch
import torch.distributed as dist


def setup():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)  # expect: GPU008
    dist.init_process_group("nccl")
    return rank


if __name__ == "__main__":
    setup()
