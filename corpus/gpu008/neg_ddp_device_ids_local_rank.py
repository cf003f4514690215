# ok: DDP gets the rank on this node, which is a GPU every node has
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def train():
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    net = torch.nn.Linear(16, 16).cuda()
    net = DistributedDataParallel(net, device_ids=[local], output_device=local)
    print(dist.get_rank(), net)


if __name__ == "__main__":
    train()
