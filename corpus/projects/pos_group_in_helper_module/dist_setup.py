import torch.distributed as dist


def init():
    dist.init_process_group(backend="nccl")  # expect: GPU003(error)
