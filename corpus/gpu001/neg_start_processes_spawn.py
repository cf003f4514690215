# silent: start_processes(start_method="spawn") is a spawn-safe launcher, even after the parent queried and used CUDA.
import torch
from torch.multiprocessing import start_processes


def shard_worker(local_rank, shards):
    torch.cuda.set_device(local_rank)
    part = torch.tensor(shards[local_rank], device="cuda")
    print(local_rank, part.sum().item())


def main():
    gpus = torch.cuda.device_count()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    shards = [[float(i)] * 100 for i in range(gpus)]
    start_processes(shard_worker, args=(shards,), nprocs=gpus, start_method="spawn")


if __name__ == "__main__":
    main()
