# silent: the parent's arithmetic and fills touch at most 64 x 64 elements, below torch's grain size, so they run on the calling thread and never start the intra-op pool; the child has nothing to inherit.
import multiprocessing as mp

import torch


def blend(weight):
    left = torch.ones(400, 400)
    right = torch.full((400, 400), 2.0)
    print((left * weight + right).mean().item())


if __name__ == "__main__":
    bias = torch.zeros(64, 64)
    offsets = torch.rand(64, 64) * 0.1 + bias
    worker = mp.Process(target=blend, args=(0.5,))
    worker.start()
    worker.join()
    print(offsets.sum().item())
