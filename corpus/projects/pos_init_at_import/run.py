"""Importing app.engine initialises CUDA; the pool's workers are forked afterwards and use it."""
import multiprocessing as mp

import torch

from app.engine import embed

if __name__ == "__main__":
    batches = [torch.randn(4, 32) for _ in range(8)]
    with mp.Pool(4) as pool:  # expect: GPU001
        vectors = pool.map(embed, batches)
