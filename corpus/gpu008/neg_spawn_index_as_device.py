# silent: mp.spawn passes each process its index on this machine
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(index, world):
    torch.cuda.set_device(index)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29500", rank=index, world_size=world)
    print(torch.ones(1, device=f"cuda:{index}"))


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(worker, args=(n,), nprocs=n)
