# hazard: workers replaced after each task (maxtasksperchild) are forked from the parent after its matmul
import multiprocessing as mp

import torch


def score(weights, batch):
    return (batch @ weights).relu().sum().item()


def main():
    workers = mp.Pool(4, maxtasksperchild=1)  # expect: GPU014
    weights = torch.randn(512, 512)
    weights = weights @ weights.t()
    batches = [torch.randn(64, 512) for _ in range(8)]
    results = [workers.apply_async(score, (weights, b)) for b in batches]
    workers.close()
    print(sum(r.get() for r in results))


if __name__ == "__main__":
    main()
