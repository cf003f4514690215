# silent: the rank never binds its device, but every module and tensor names its own GPU and the collectives run on them: nothing touches GPU 0 by default
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def train():
    slot = int(os.environ["LOCAL_RANK"])
    gpu = torch.device("cuda", slot)
    dist.init_process_group("nccl")
    net = DistributedDataParallel(torch.nn.Linear(16, 4).to(gpu), device_ids=[slot])
    batch = torch.randn(8, 16, device=gpu)
    loss = net(batch).sum()
    loss.backward()
    total = torch.tensor([loss.item()], device=gpu)
    dist.all_reduce(total)


if __name__ == "__main__":
    train()
