# silent: the parent narrows CUDA_VISIBLE_DEVICES for each child before starting it, so cuda:0 is the child's own GPU
import os
import multiprocessing as mp

import torch


def serve(gpu):
    model = torch.jit.load("model.ts")
    print(model(torch.rand(2, 4, device="cuda")))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    procs = []
    for g in range(4):
        os.environ["CUDA_VISIBLE_DEVICES"] = str(g)
        p = ctx.Process(target=serve, args=(g,))
        p.start()
        procs.append(p)
    for p in procs:
        p.join()
