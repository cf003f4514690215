# hazard: the Trainer allocates its model with .cuda() after init but before set_device, so every rank builds it on GPU 0.
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, dim):
        self.model = torch.nn.Sequential(torch.nn.Linear(dim, dim), torch.nn.ReLU()).cuda()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def wrap(self, local_rank):
        self.model = DDP(self.model, device_ids=[local_rank])

    def step(self, batch):
        loss = self.model(batch).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")  # expect: GPU003(error)
    trainer = Trainer(dim=1024)
    torch.cuda.set_device(local_rank)
    trainer.wrap(local_rank)
    for _ in range(10):
        trainer.step(torch.randn(8, 1024, device=f"cuda:{local_rank}"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
