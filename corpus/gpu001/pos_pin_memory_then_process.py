# hazard: pin_memory() allocates through the CUDA host allocator, which creates a context in the parent; the forked child's CUDA work then fails.
import multiprocessing as mp

import torch


def upload(n):
    staging = torch.empty(n)
    device_copy = staging.to("cuda", non_blocking=True)
    print(device_copy.sum().item())


def main():
    staging = torch.zeros(1 << 20).pin_memory()
    print("pinned:", staging.is_pinned())
    worker = mp.Process(target=upload, args=(1 << 16,))
    worker.start()  # expect: GPU001
    worker.join()


if __name__ == "__main__":
    main()
