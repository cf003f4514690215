# hazard: dist.barrier() runs between init_process_group and set_device, so the first NCCL communicator is built on the wrong GPU.
import os

import torch
import torch.distributed as dist


def prepare_data(rank):
    if rank == 0:
        print("downloading dataset on rank 0")


def setup():
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")  # expect: GPU003(error)
    prepare_data(dist.get_rank())
    dist.barrier()
    torch.cuda.set_device(local_rank)
    return local_rank


def main():
    local_rank = setup()
    t = torch.ones(4, device=f"cuda:{local_rank}")
    dist.all_reduce(t)
    print(t.tolist())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
