"""The barrier runs in a helper of another module, between the group and set_device: a collective
on GPU 0 in every rank, so GPU003 (error), not the order-only GPU015."""
import os

import torch
import torch.distributed as dist

from trainkit.sync import rank_zero, wait_for_everyone


def main():
    dist.init_process_group("nccl")  # expect: GPU003(error)
    if rank_zero():
        print("preparing the cache once")
    wait_for_everyone()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))


if __name__ == "__main__":
    main()
