import os

import numpy as np

from numba import cuda


def test_child_uses_device():
    cuda.to_device(np.arange(4))
    pid = os.fork()  # expect: GPU001
    if pid == 0:
        cuda.to_device(np.arange(4))
        os._exit(0)
    os.waitpid(pid, 0)
