# silent: torch.device(0) only names a device; on torch 2.11 it did not run cuInit, so the forked child may still start CUDA.
import os

import torch


def child(dev):
    x = torch.arange(16, device=dev, dtype=torch.float32)
    print("child sum:", x.sum().item())


def main():
    dev = torch.device(0)
    print("will use", dev)
    pid = os.fork()
    if pid == 0:
        child(dev)
        os._exit(0)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
