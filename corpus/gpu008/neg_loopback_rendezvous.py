# silent: the test sets the rendezvous address to the loopback before starting its ranks, so every rank runs on this machine
import multiprocessing
import os

import torch
import torch.distributed as dist


def check_rank(world):
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)


def test_two_ranks():
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29511"
    ranks = []
    for i in range(2):
        os.environ["RANK"] = str(i)
        p = multiprocessing.get_context("spawn").Process(target=check_rank, args=(2,))
        p.start()
        ranks.append(p)
    for p in ranks:
        p.join()
