# silent: the parent's element-wise work is on tensors whose size gpulint cannot know (built from a list read at run time); small ones run on one thread, so an element-wise operation of unknown size is not taken to start the pool.
import json
import multiprocessing as mp
import sys

import torch


def blend(weight):
    left = torch.ones(400, 400)
    print((left * weight).mean().item())


if __name__ == "__main__":
    with open(sys.argv[1]) as handle:
        readings = torch.tensor(json.load(handle))
    centred = readings - readings.mean()
    worker = mp.Process(target=blend, args=(0.5,))
    worker.start()
    worker.join()
    print(centred.abs().max().item())
