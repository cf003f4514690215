# silent: the mp.spawn worker binds set_device(rank) before init_process_group and passes device_ids to DDP.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, gpu_id):
        self.gpu_id = gpu_id
        self.model = DDP(torch.nn.Linear(20, 1).to(gpu_id), device_ids=[gpu_id])
        self.opt = torch.optim.SGD(self.model.parameters(), lr=1e-3)

    def train(self, steps):
        for _ in range(steps):
            x = torch.randn(32, 20).to(self.gpu_id)
            loss = self.model(x).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()


def main(rank, world_size):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="tcp://localhost:12355", rank=rank, world_size=world_size)
    Trainer(rank).train(steps=100)
    dist.destroy_process_group()


if __name__ == "__main__":
    world_size = torch.cuda.device_count()
    mp.spawn(main, args=(world_size,), nprocs=world_size)
