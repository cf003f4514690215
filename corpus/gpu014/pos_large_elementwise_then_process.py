# hazard: the parent scales a 512 x 512 host tensor (262144 elements, above torch's grain size) on the intra-op pool, then forks a process whose target adds two large host tensors: the child waits for pool threads it never got.
import multiprocessing as mp

import torch


def blend(weight):
    left = torch.ones(400, 400)
    right = torch.full((400, 400), 2.0)
    mixed = left * weight + right * (1 - weight)
    print(mixed.mean().item())


if __name__ == "__main__":
    grid = torch.rand(512, 512)
    scaled = grid * 0.5
    worker = mp.Process(target=blend, args=(0.25,))
    worker.start()  # expect: GPU014
    worker.join()
    print(scaled.shape)
