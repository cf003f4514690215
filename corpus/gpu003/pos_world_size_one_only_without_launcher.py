# hazard: world_size is 1 only when no launcher ran; under torchrun it comes from the environment, and the barrier runs on GPU 0 in every rank before set_device
import argparse
import os

import torch
import torch.distributed as dist


def setup(local_rank):
    if local_rank == -1:
        world_size, rank = 1, 0
    else:
        world_size = int(os.environ["WORLD_SIZE"])
        rank = int(os.environ["RANK"])
    dist.init_process_group("nccl", rank=rank, world_size=world_size)  # expect: GPU003(error)
    dist.barrier()
    if local_rank != -1:
        torch.cuda.set_device(local_rank)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    setup(parser.parse_args().local_rank)
