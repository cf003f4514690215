# hazard: every run of the sweep builds a Trainer, whose constructor sets the start method; the second run's call finds it already fixed by the first and raises "context has already been set"
import multiprocessing as mp

import torch


class Trainer:
    def __init__(self, lr):
        mp.set_start_method("spawn")  # expect: GPU005(error)
        self.lr = lr

    def fit(self, shards):
        with mp.Pool(2) as pool:
            return pool.map(train_shard, [(s, self.lr) for s in shards])


def train_shard(job):
    shard, lr = job
    weights = torch.zeros(8, device="cuda")
    return (weights - lr * shard).sum().item()


def sweep():
    results = {}
    for lr in (0.1, 0.01, 0.001):
        results[lr] = Trainer(lr).fit([1, 2, 3])
    return results


if __name__ == "__main__":
    print(sweep())
