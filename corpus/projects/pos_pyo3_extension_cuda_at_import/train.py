"""Imports the project's own Rust extension, whose module initialiser creates a CUDA context, and
then forks a pool whose workers use CUDA."""
import multiprocessing as mp

import fastops
from scoring.workers import score


if __name__ == "__main__":
    print("extension on GPU", fastops.ordinal)
    with mp.Pool(2) as pool:  # expect: GPU001
        print(pool.map(score, range(4)))
