# hazard: torch.accelerator.set_device_index comes right after init_process_group; fine today, breaks with device_id or an early barrier.
import os

import torch
import torch.distributed as dist

backend = "nccl"


def init_distributed():
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    dist.init_process_group(backend, world_size=world_size)  # expect: GPU015
    torch.accelerator.set_device_index(local_rank)
    return local_rank


def main():
    local_rank = init_distributed()
    x = torch.full((8,), float(dist.get_rank()), device=f"cuda:{local_rank}")
    dist.all_reduce(x)
    print(x.tolist())


if __name__ == "__main__":
    main()
