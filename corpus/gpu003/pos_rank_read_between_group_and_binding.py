# hazard: a barrier runs on GPU 0 in every rank before the device is bound; the index is read only after the group, so moving the binding up would read it too early (no fix is offered)
import os

import torch
import torch.distributed as dist


def setup():
    dist.init_process_group("nccl")  # expect: GPU003(error)
    dist.barrier()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank


if __name__ == "__main__":
    setup()
