# hazard: pycuda.autoinit creates a context at import; the forked pool workers compile and launch a kernel.
import multiprocessing

import numpy as np
import pycuda.autoinit  # noqa: F401
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

KERNEL = "__global__ void scale(float *v) { v[threadIdx.x] *= 2.0f; }"


def scale_chunk(chunk):
    module = SourceModule(KERNEL)
    scale = module.get_function("scale")
    scale(cuda.InOut(chunk), block=(chunk.size, 1, 1))
    return chunk


if __name__ == "__main__":
    chunks = [np.ones(32, dtype=np.float32) for _ in range(4)]
    with multiprocessing.Pool(2) as pool:  # expect: GPU001
        print(pool.map(scale_chunk, chunks))
