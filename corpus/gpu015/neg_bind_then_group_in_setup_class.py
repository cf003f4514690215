# silent: the trainer binds the rank's device in its constructor, before the group that its setup creates (HAZARDS.md GPU003, set_device first)
import os

import torch
import torch.distributed as dist


class Runner:
    def __init__(self):
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(self.local_rank)

    def setup(self):
        dist.init_process_group(backend="nccl")
        dist.barrier()


if __name__ == "__main__":
    Runner().setup()
