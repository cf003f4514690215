"""The rank binds its device through a backend object that a global holds, filled lazily on first
use, right after creating the group: nothing touches the GPU in between, so order only (GPU015)."""
import os

import torch.distributed as dist

from devices import active_device


def run(backend="nccl"):
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group(backend=backend)  # expect: GPU015
    active_device().set_device(local_rank)
    dist.barrier()


if __name__ == "__main__":
    run()
