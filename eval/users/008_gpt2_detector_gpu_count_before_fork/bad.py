import os

import torch
import torch.distributed as dist
from torch.multiprocessing import Process


def run(rank, world_size):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29500"
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(768, 2).cuda(), device_ids=[rank])
    out = model(torch.randn(8, 768).cuda())
    out.sum().backward()


if __name__ == "__main__":
    nproc = torch.cuda.device_count() if torch.cuda.is_available() else 0
    procs = []
    for rank in range(nproc):
        p = Process(target=run, args=(rank, nproc))
        p.start()
        procs.append(p)
    for p in procs:
        p.join()
