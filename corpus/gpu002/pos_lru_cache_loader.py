# hazard: the memoised loader places the model on cuda:0; every spawned worker that chose its own GPU gets the cuda:0 copy.
import functools

import torch
import torch.multiprocessing as mp


@functools.lru_cache(maxsize=None)
def load_ranker():
    ranker = torch.nn.Sequential(torch.nn.Linear(128, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    return ranker.to("cuda:0")  # expect: GPU002


def rank_shard(rank, shards):
    torch.cuda.set_device(rank)
    ranker = load_ranker()
    for features in shards:
        scores = ranker(features.to(f"cuda:{rank}"))
        print(rank, scores.mean().item())


if __name__ == "__main__":
    shards = [torch.randn(16, 128) for _ in range(4)]
    mp.spawn(rank_shard, args=(shards,), nprocs=2)
