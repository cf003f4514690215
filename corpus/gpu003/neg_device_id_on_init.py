# silent: init_process_group(device_id=torch.device("cuda", local_rank)) binds the rank's GPU without a separate set_device.
import os

import torch
import torch.distributed as dist


def main():
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", rank % 8))
    device = torch.device("cuda", local_rank)
    dist.init_process_group(backend="nccl", device_id=device)
    dist.barrier()
    shard = torch.arange(1024, device=device, dtype=torch.float32) * rank
    dist.all_reduce(shard)
    if rank == 0:
        print(shard[:4].tolist())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
