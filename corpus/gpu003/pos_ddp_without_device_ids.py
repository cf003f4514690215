# hazard: DDP without device_ids broadcasts parameters (a collective) before the rank's device is bound by set_device.
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def build(local_rank):
    device = torch.device("cuda", local_rank)
    net = torch.nn.Embedding(10_000, 64).to(device)
    return DDP(net)


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group(backend="nccl")  # expect: GPU003(error)
    model = build(local_rank)
    torch.cuda.set_device(local_rank)
    ids = torch.randint(0, 10_000, (32, 16), device=f"cuda:{local_rank}")
    model(ids).sum().backward()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
