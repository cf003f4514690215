# silent: what was saved is a list of integers, which has no device: every rank loads plain numbers
import os

import torch
import torch.distributed as dist

INDEX_FILE = "sample_ids.pt"


def prepare():
    torch.save([3, 1, 4, 1, 5], INDEX_FILE)


def train():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    ids = torch.load(INDEX_FILE)
    return ids


if __name__ == "__main__":
    if os.environ.get("PREPARE"):
        prepare()
    else:
        train()
