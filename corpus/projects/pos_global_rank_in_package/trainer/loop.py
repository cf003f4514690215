# hazard: the package's training entry takes the global rank as its device; a job on two nodes asks node two for GPUs 8-15
import os

import torch
import torch.distributed as dist


def train():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)  # expect: GPU008
    dist.init_process_group("nccl")
    dist.barrier()


if __name__ == "__main__":
    train()
