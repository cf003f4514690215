import os

import torch
import torch.distributed as dist


class Flux2TPModel(torch.nn.Module):
    def __init__(self, hidden=3072):
        super().__init__()
        self.proj = torch.nn.Linear(hidden, hidden)
        self.to(self._rank_device())

    def _rank_device(self):
        if not torch.cuda.is_available():
            return torch.device("cpu")
        if dist.is_initialized():
            local_rank = int(os.environ.get("LOCAL_RANK", 0))
            return torch.device(f"cuda:{local_rank}")
        return torch.device("cuda")

