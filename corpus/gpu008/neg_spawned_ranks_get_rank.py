# silent: mp.spawn starts every rank on this machine, so the process group's global rank is also the index of a local GPU
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def shard(index, world):
    dist.init_process_group("nccl", init_method="tcp://localhost:23456", rank=index, world_size=world, device_id=torch.device("cuda", index))
    gpu = torch.device("cuda", dist.get_rank())
    torch.arange(8, device=gpu).sum()


if __name__ == "__main__":
    mp.spawn(shard, args=(2,), nprocs=2)
