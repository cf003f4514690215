# silent: the parent uses CUDA, then sets the variable only for the spawned children it starts next, which read it when they start
import os

import torch
import torch.multiprocessing as mp


def serve(shard):
    torch.zeros(shard, device="cuda")


if __name__ == "__main__":
    print("parent sees", torch.cuda.get_device_name(0))
    ctx = mp.get_context("spawn")
    children = []
    for gpu in range(2):
        os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)
        child = ctx.Process(target=serve, args=(gpu + 1,))
        child.start()
        children.append(child)
    for child in children:
        child.join()
