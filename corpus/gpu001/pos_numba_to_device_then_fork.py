# hazard: numba.cuda.to_device creates a context in the parent; the forked child's own to_device fails with "CUDA initialized before forking".
import os

import numpy as np
from numba import cuda


def child_copy(n):
    arr = cuda.to_device(np.arange(n, dtype=np.float32))
    print("child copied", arr.copy_to_host().sum())


def main():
    lookup = cuda.to_device(np.linspace(0.0, 1.0, 1024, dtype=np.float32))
    print("table on device:", lookup.shape)
    pid = os.fork()  # expect: GPU001
    if pid == 0:
        child_copy(4096)
        os._exit(0)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
