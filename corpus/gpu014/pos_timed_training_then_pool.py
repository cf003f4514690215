# hazard: timeit calls the training step in the parent, whose linear layer runs on the intra-op pool; the pool made afterwards forks workers that run the same step on the CPU.
import timeit
import multiprocessing as mp

import torch


def train_step(_=None):
    layer = torch.nn.Linear(128, 8)
    batch = torch.rand(16, 128)
    loss = layer(batch).pow(2).mean()
    loss.backward()
    return loss.item()


def main():
    print("parent", timeit.timeit(train_step, number=3))
    with mp.Pool(2) as pool:  # expect: GPU014
        print(pool.map(train_step, range(4)))


if __name__ == "__main__":
    main()
