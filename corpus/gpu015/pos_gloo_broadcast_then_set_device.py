# hazard: order only: the collective before set_device runs on a gloo subgroup, so info, not an error
"""The only collective before set_device runs on a gloo (CPU) subgroup: no GPU is touched, so this is
the order-only case (info), not the error a broadcast on the NCCL group would be."""
import os

import torch
import torch.distributed as dist


def setup():
    dist.init_process_group(backend="nccl")  # expect: GPU015
    cpu_group = dist.new_group(backend="gloo")
    config = torch.zeros(8, dtype=torch.uint8)
    dist.broadcast(config, src=0, group=cpu_group)
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    return config


if __name__ == "__main__":
    setup()
