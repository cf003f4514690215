# hazard: the accelerator-generic device_count() initialises CUDA (unlike torch.cuda.device_count), then os.fork() children use the GPU.
import os

import torch


def child_main(slot):
    x = torch.arange(1024, device=f"cuda:{slot}")
    os.write(1, f"slot {slot}: {int(x.sum())}\n".encode())


def spawn_children():
    n = torch.get_device_module().device_count()
    pids = []
    for slot in range(n):
        pid = os.fork()  # expect: GPU001
        if pid == 0:
            child_main(slot)
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)


if __name__ == "__main__":
    spawn_children()
