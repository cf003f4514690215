# silent: the parent pins host memory (a CUDA context), but the forked workers only compute on the CPU and never touch CUDA.
from multiprocessing import Pool

import numpy as np
import torch


def checksum(chunk):
    return int(np.bitwise_xor.reduce(np.frombuffer(chunk, dtype=np.uint8)))


def main(chunks):
    pinned = torch.zeros(1 << 20, dtype=torch.uint8).pin_memory()
    with Pool(4) as pool:
        sums = pool.map(checksum, chunks)
    pinned[: len(sums)] = torch.tensor(sums, dtype=torch.uint8)
    print(pinned[:8].tolist())


if __name__ == "__main__":
    main([bytes(range(256)) * 16 for _ in range(8)])
