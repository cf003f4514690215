"""The device is bound through a backend object, right after the group: order-only (GPU015, info)."""
import os

import torch.distributed as dist

from accel import current_accelerator


def start():
    dist.init_process_group("nccl")  # expect: GPU015
    current_accelerator().set_device(int(os.environ["LOCAL_RANK"]))


if __name__ == "__main__":
    start()
