# silent: the gloo backend with CPU tensors and a CPU model never touches a GPU, so no device needs binding.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def run(rank, world_size):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29600", rank=rank, world_size=world_size)
    model = DDP(torch.nn.Linear(20, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(20):
        x = torch.randn(64, 20)
        loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    total = torch.tensor([loss.item()])
    dist.all_reduce(total)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(run, args=(4,), nprocs=4)
