# hazard: torch.cuda.is_available() runs cuInit in the parent, so forked children cannot initialise CUDA.
import multiprocessing
import sys

import torch


def train_shard(gpu, shard):
    torch.cuda.set_device(gpu)
    weights = torch.randn(1024, 1024, device=f"cuda:{gpu}")
    for _ in range(10):
        weights = weights @ weights.T
        weights /= weights.norm()
    print(f"shard {shard} on gpu {gpu}: {weights.sum().item():.4f}")


def check_environment():
    if not torch.cuda.is_available():
        sys.exit("this job needs a GPU")


def launch(num_shards):
    workers = []
    for shard in range(num_shards):
        proc = multiprocessing.Process(target=train_shard, args=(0, shard))
        workers.append(proc)
    for proc in workers:
        proc.start()  # expect: GPU001
    for proc in workers:
        proc.join()


if __name__ == "__main__":
    check_environment()
    launch(num_shards=2)
