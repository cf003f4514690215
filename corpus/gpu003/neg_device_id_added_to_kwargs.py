# silent: the rank's device reaches `init_process_group` as `device_id` in a keyword dict the function fills before the call
import os

import torch
import torch.distributed as dist


def start_group(backend, world_size):
    options = dict(world_size=world_size, rank=int(os.environ["RANK"]))
    if torch.cuda.is_available():
        options.update(device_id=torch.device("cuda", int(os.environ["LOCAL_RANK"])))
    dist.init_process_group(backend, **options)
    dist.barrier()


if __name__ == "__main__":
    start_group("nccl", int(os.environ["WORLD_SIZE"]))
