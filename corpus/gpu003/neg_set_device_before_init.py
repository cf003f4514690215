# silent: set_device(LOCAL_RANK) comes first, then init_process_group("nccl"), then the model, DDP and collectives.
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def ddp_setup():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")
    return local_rank


def main():
    local_rank = ddp_setup()
    dist.barrier()
    model = DDP(torch.nn.Linear(64, 64).cuda(), device_ids=[local_rank])
    out = model(torch.randn(4, 64, device="cuda")).sum()
    out.backward()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
