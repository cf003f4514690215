# silent: the global rank is reduced to a GPU of this machine
import os

import torch
import torch.distributed as dist


def main():
    gpu = int(os.environ["RANK"]) % torch.cuda.device_count()
    torch.cuda.set_device(gpu)
    dist.init_process_group("nccl")
    print(torch.zeros(2, device="cuda"))


if __name__ == "__main__":
    main()
