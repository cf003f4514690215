# hazard: the parent contracts host tensors with einsum, then starts a forked Process whose target runs a linear layer's matmul on the CPU.
from multiprocessing import Process, Queue

import torch
import torch.nn.functional as F


def score(queue, count):
    weight = torch.randn(10, 512)
    inputs = torch.randn(count, 512)
    queue.put(F.linear(inputs, weight).argmax(dim=1).tolist())


if __name__ == "__main__":
    left = torch.randn(8, 64, 128)
    right = torch.randn(8, 128, 32)
    mixed = torch.einsum("bij,bjk->bik", left, right)
    results = Queue()
    worker = Process(target=score, args=(results, 64))
    worker.start()  # expect: GPU014
    print(results.get()[:4], mixed.shape)
    worker.join()
