# hazard: each mp.spawn worker joins an NCCL group but never binds its GPU; .cuda() and all_reduce all run on GPU 0.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world_size):
    dist.init_process_group(  # expect: GPU003(error)
        "nccl",
        init_method="tcp://127.0.0.1:23456",
        rank=rank,
        world_size=world_size,
    )
    grad = torch.randn(1 << 16).cuda()
    dist.all_reduce(grad, op=dist.ReduceOp.SUM)
    grad /= world_size
    if rank == 0:
        print("averaged grad norm", grad.norm().item())
    dist.destroy_process_group()


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(worker, args=(n,), nprocs=n, join=True)
