# silent: `device_id=` on init_process_group binds the rank's GPU on the call itself; a set_device after it changes nothing (HAZARDS.md GPU003, `device_id=` on the call)
import os

import torch
import torch.distributed as dist


def bring_up():
    rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
    torch.cuda.set_device(rank)
    return rank


if __name__ == "__main__":
    r = bring_up()
    dist.all_reduce(torch.ones(2, device=f"cuda:{r}"))
