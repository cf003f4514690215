# hazard: NCCL process group with no device binding at all; the barrier and .cuda() model put every rank on GPU 0.
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group(backend="nccl")  # expect: GPU003(error)
    rank = dist.get_rank()
    if rank == 0:
        os.makedirs("checkpoints", exist_ok=True)
    dist.barrier()

    model = torch.nn.Linear(512, 512).cuda()
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for _ in range(100):
        loss = ddp(torch.randn(32, 512).cuda()).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
