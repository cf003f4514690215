# silent: the availability check runs inside a generator context manager that sets PYTORCH_NVML_BASED_CUDA_CHECK=1 until the block ends, so it asks NVML without cuInit and the forked child may use CUDA.
import contextlib
import multiprocessing as mp
import os

import torch


@contextlib.contextmanager
def scoped_env(**values):
    previous = {}
    for name, value in values.items():
        name = name.upper()
        if name in os.environ:
            previous[name] = os.environ[name]
        os.environ[name] = str(value)
    try:
        yield
    finally:
        for name in values:
            name = name.upper()
            if name in previous:
                os.environ[name] = previous[name]
            else:
                os.environ.pop(name, None)


def gpu_present():
    with scoped_env(PYTORCH_NVML_BASED_CUDA_CHECK="1"):
        present = torch.cuda.is_available()
    return present


def shard_worker(idx):
    torch.cuda.set_device(idx)
    print(idx, torch.ones(2, device="cuda").sum())


if __name__ == "__main__":
    if gpu_present():
        ctx = mp.get_context("fork")
        procs = [ctx.Process(target=shard_worker, args=(i,)) for i in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
