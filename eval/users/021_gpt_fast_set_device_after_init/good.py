import os

import torch
import torch.distributed as dist


def maybe_init_dist():
    try:
        rank = int(os.environ["LOCAL_RANK"])
        world_size = int(os.environ["LOCAL_WORLD_SIZE"])
    except KeyError:
        return None
    if world_size < 2:
        return None
    torch.cuda.set_device(rank)
    dist.init_process_group(backend="nccl", rank=rank, world_size=world_size)
    return rank


if __name__ == "__main__":
    rank = maybe_init_dist()
    x = torch.ones(4, device="cuda")
    if rank is not None:
        dist.all_reduce(x)
    print(rank, x)
