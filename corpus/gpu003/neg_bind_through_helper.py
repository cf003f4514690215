# silent: a helper binds the GPU with set_device before another helper creates the NCCL group; order holds across calls.
import os

import torch
import torch.distributed as dist


def select_gpu():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank


def connect(timeout_min=30):
    import datetime

    dist.init_process_group(backend="nccl", timeout=datetime.timedelta(minutes=timeout_min))


def main():
    local_rank = select_gpu()
    connect()
    dist.barrier()
    buf = torch.zeros(16).cuda()
    dist.all_reduce(buf)
    print(local_rank, buf.sum().item())


if __name__ == "__main__":
    main()
