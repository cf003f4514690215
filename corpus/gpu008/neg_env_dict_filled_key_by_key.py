# silent: the child's environment is filled key by key, with the loopback as its rendezvous host: every rank runs on this machine
import multiprocessing
import os

import torch


def rank_main(env):
    os.environ.update(env)
    torch.cuda.set_device(int(os.environ["RANK"]))
    torch.zeros(2, device="cuda")


def launch(world):
    children = []
    for rank in range(world):
        env = {}
        env["RANK"] = str(rank)
        env["WORLD_SIZE"] = str(world)
        env["MASTER_ADDR"] = "127.0.0.1"
        child = multiprocessing.Process(target=rank_main, args=(env,))
        child.start()
        children.append(child)
    for child in children:
        child.join()


if __name__ == "__main__":
    launch(2)
