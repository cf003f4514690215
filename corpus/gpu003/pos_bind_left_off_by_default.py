# hazard: the helper binds the device only when asked, and its one caller leaves the flag at its default, so the group's first barrier runs on GPU 0 in every rank.
import os

import torch
import torch.distributed as dist


def prepare(bind_device=False):
    if bind_device:
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))


def main():
    prepare()
    dist.init_process_group("nccl")  # expect: GPU003(error)
    dist.barrier()


if __name__ == "__main__":
    main()
