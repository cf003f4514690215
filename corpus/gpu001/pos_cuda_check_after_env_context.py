# hazard: the generator context manager restores the environment when its block ends, so the availability check after the block runs without PYTORCH_NVML_BASED_CUDA_CHECK, initialises the driver, and the forked children inherit it.
import contextlib
import multiprocessing as mp
import os

import torch


@contextlib.contextmanager
def nvml_only_check():
    os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
    try:
        yield
    finally:
        os.environ.pop("PYTORCH_NVML_BASED_CUDA_CHECK", None)


def gpu_present():
    with nvml_only_check():
        print("checking")
    return torch.cuda.is_available()


def shard_worker(idx):
    torch.cuda.set_device(idx)
    print(idx, torch.ones(2, device="cuda").sum())


if __name__ == "__main__":
    if gpu_present():
        ctx = mp.get_context("fork")
        procs = [ctx.Process(target=shard_worker, args=(i,)) for i in range(2)]
        for p in procs:
            p.start()  # expect: GPU001
        for p in procs:
            p.join()
