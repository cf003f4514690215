"""The rank binds its device through a backend object that a global holds, filled lazily on first
use, before creating the group: the barrier runs on the rank's own GPU (HAZARDS.md GPU003, a
device abstraction in a lazily filled global binds the device)."""
import os

import torch.distributed as dist

from devices import active_device


def run(backend="nccl"):
    active_device().set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group(backend=backend)
    dist.barrier()


if __name__ == "__main__":
    run()
