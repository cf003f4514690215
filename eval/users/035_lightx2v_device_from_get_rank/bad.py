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
            return torch.device(f"cuda:{dist.get_rank()}")
        return torch.device("cuda")

