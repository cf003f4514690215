# silent: the rank binds its device through the module `torch.get_device_module` returns for it (torch.cuda for a CUDA device) before the group exists
import os

import torch
import torch.distributed as dist


def main():
    slot = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", slot)
    torch.get_device_module(device).set_device(slot)
    dist.init_process_group("nccl")
    dist.all_reduce(torch.zeros(8, device=device))


if __name__ == "__main__":
    main()
