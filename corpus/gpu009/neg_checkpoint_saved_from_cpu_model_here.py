# silent: the file is written in this same function from a model built on the CPU, so loading it gives CPU tensors in every rank
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def run(rank, world, path):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29501", rank=rank, world_size=world)
    model = torch.nn.Linear(4, 4)
    if world == 1:
        torch.save(model.state_dict(), path)
    else:
        model.load_state_dict(torch.load(path))
    model.to(rank)


if __name__ == "__main__":
    mp.spawn(run, args=(2, sys.argv[1]), nprocs=2)
