# silent: a lazily compiled @cuda.jit kernel touches no device until it is launched, so children forked afterwards start CUDA cleanly.
import multiprocessing as mp

import numpy as np
from numba import cuda


@cuda.jit
def scale(out, factor):
    i = cuda.grid(1)
    if i < out.size:
        out[i] *= factor


def run(factor):
    d = cuda.to_device(np.ones(1024, dtype=np.float32))
    scale[4, 256](d, factor)
    print(factor, d.copy_to_host().sum())


if __name__ == "__main__":
    procs = [mp.Process(target=run, args=(f,)) for f in (2.0, 3.0)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
