# hazard: the controller is spawned through a context, so its own default stays fork; it forks its workers after initialising CUDA
import multiprocessing

import torch


def shard_worker(rank):
    torch.cuda.set_device(rank)
    torch.ones(4, device="cuda").sum()


def controller():
    torch.cuda.init()
    for rank in range(2):
        multiprocessing.Process(target=shard_worker, args=(rank,)).start()  # expect: GPU001


if __name__ == "__main__":
    spawn = multiprocessing.get_context("spawn")
    spawn.Process(target=controller).start()
