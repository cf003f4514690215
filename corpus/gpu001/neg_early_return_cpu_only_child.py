# silent: the early-return branch runs in the parent only; the pool workers run a CPU-only function, so fork after CUDA init is fine.
import multiprocessing

import numpy as np
import torch


def load_model(use_gpu):
    model = torch.nn.Linear(8, 2)
    if use_gpu:
        return model.cuda()
    return model


def tokenize(line):
    return np.array([len(word) for word in line.split()], dtype=np.int64)


if __name__ == "__main__":
    model = load_model(True)
    with multiprocessing.Pool(4) as pool:
        lengths = pool.map(tokenize, ["a bb ccc", "dddd e"])
    print(model, lengths)
