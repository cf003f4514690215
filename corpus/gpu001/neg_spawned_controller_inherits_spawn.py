# silent: a child started by spawn takes its parent's explicit start method, so its own Process spawns too
import multiprocessing

import torch


def shard_worker(rank):
    torch.cuda.set_device(rank)
    torch.ones(4, device="cuda").sum()


def controller():
    torch.cuda.init()
    for rank in range(2):
        multiprocessing.Process(target=shard_worker, args=(rank,)).start()


if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")
    multiprocessing.Process(target=controller).start()
