# hazard: torch.device("cuda", get_rank()) picks GPU 8 and up on the second node
import os

import torch
import torch.distributed as dist


def shard_tensor(data):
    rank = dist.get_rank()
    device = torch.device("cuda", rank)  # expect: GPU008
    return data.to(device)


def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    print(shard_tensor(torch.ones(4)))


if __name__ == "__main__":
    main()
