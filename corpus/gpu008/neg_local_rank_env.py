# silent: LOCAL_RANK is the rank on this node; RANK only picks the data shard
import os

import torch
import torch.distributed as dist


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    shard = list(range(100))[rank::dist.get_world_size()]
    print(len(shard))


if __name__ == "__main__":
    main()
