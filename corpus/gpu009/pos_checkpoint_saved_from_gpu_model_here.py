# hazard: the checkpoint is written from a model already on rank 0's GPU, so every rank loads its tensors back onto cuda:0
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def run(rank, world, path):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29502", rank=rank, world_size=world)
    model = torch.nn.Linear(4, 4).to(rank)
    if world == 1:
        torch.save(model.state_dict(), path)
    else:
        model.load_state_dict(torch.load(path))  # expect: GPU009


if __name__ == "__main__":
    mp.spawn(run, args=(2, sys.argv[1]), nprocs=2)
