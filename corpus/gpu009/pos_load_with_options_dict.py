# hazard: every rank restores the checkpoint onto the GPU it was saved from; the options passed with `**` are known and hold no `map_location`, so the fix adds one after them
import os

import torch
import torch.distributed as dist


def resume(path):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    options = {"weights_only": True}
    return torch.load(path, **options)  # expect: GPU009


if __name__ == "__main__":
    resume("last.pt")
