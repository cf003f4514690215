# hazard: DDP is told the global rank is this process's GPU: on a second node it names a missing GPU
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def train():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    net = torch.nn.Linear(16, 16).cuda()
    net = DistributedDataParallel(net, device_ids=[rank])  # expect: GPU008
    return net


if __name__ == "__main__":
    train()
