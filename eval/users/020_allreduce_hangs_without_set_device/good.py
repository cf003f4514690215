import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def join_group(rank, world_size):
    backend = dist.Backend.NCCL if torch.cuda.is_available() else dist.Backend.GLOO
    torch.cuda.set_device(rank)
    dist.init_process_group(init_method="tcp://localhost:20000", backend=backend, rank=rank, world_size=world_size)
    dist.all_reduce(torch.zeros([1]).cuda(), op=dist.ReduceOp.SUM)
    print("reduced", dist.get_rank())


def entry(rank, workers):
    join_group(rank, workers)


if __name__ == "__main__":
    mp.spawn(entry, nprocs=2, args=(2,), join=True)
