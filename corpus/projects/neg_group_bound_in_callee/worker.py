"""The worker binds its device, then initialises the distributed state."""
import os

import torch

from dist_utils.state import init_distributed_environment


class Worker:
    def init_device(self):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        self.comm = init_distributed_environment(self.local_rank)
