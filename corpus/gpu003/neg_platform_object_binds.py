# silent: the project's platform object binds the device with `torch.cuda.set_device` inside its own `set_device`, before the group
import os

import torch
import torch.distributed as dist


class CudaPlatform:
    name = "cuda"

    def set_device(self, index):
        torch.cuda.set_device(index)


platform = CudaPlatform()


def run():
    platform.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group(backend="nccl")
    dist.barrier()


if __name__ == "__main__":
    run()
