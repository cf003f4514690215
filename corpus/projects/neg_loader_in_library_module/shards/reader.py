import torch


def read_shard(path):
    # The library wrote these shards itself, from host tensors, in another program.
    return torch.load(path)
