# hazard: run() rebinds the module's batch size through `global` and then starts a spawn pool in the same function; the pool's workers import the module again and use the old batch size
import multiprocessing as mp

import torch

BATCH = 16


def chunk(n):
    return torch.arange(n).split(BATCH)[0].numel()  # expect: GPU013


def run(batch):
    global BATCH
    BATCH = batch
    with mp.get_context("spawn").Pool(2) as pool:
        return pool.map(chunk, [100, 200])


if __name__ == "__main__":
    print(run(64))
