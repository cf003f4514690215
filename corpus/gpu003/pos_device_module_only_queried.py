# hazard: the device's module is only asked for its current device, which binds nothing: every rank's collective runs on GPU 0
import os

import torch
import torch.distributed as dist


def main():
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    print(torch.get_device_module(device).device_count())
    dist.init_process_group("nccl")  # expect: GPU003(error)
    dist.barrier()


if __name__ == "__main__":
    main()
