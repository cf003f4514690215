import os

import torch

from .comm import Backend


class Engine:
    def __init__(self, model):
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        self.comm = Backend()
        self.model = model.cuda()

    def step(self, grads):
        return self.comm.all_reduce(grads)
