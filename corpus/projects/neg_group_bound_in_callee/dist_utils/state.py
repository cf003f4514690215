import torch
import torch.distributed as dist

from .comm import make_communicator


def init_distributed_environment(local_rank):
    # Called by the worker after it bound its device; the communicator sets it again.
    dist.init_process_group(backend="nccl")
    return make_communicator(torch.device(f"cuda:{local_rank}"))
