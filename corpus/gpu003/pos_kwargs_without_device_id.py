# hazard: the keyword dict handed to `init_process_group` never gains a device, and the barrier then runs on GPU 0 in every rank
import os

import torch.distributed as dist


def start_group(backend):
    options = dict(rank=int(os.environ["RANK"]))
    options.update(world_size=int(os.environ["WORLD_SIZE"]))
    dist.init_process_group(backend, **options)  # expect: GPU003(error)
    dist.barrier()


if __name__ == "__main__":
    start_group("nccl")
