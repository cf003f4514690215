# silent: each spawned worker runs the initializer first, which sets the global from initargs before any task reads it
import multiprocessing as mp

import torch

DEVICE_MAP = {}


def init_worker(device_map):
    global DEVICE_MAP
    DEVICE_MAP = device_map


def place(name):
    return torch.zeros(1, device=DEVICE_MAP[name])


if __name__ == "__main__":
    DEVICE_MAP = {"encoder": "cuda:0", "decoder": "cuda:1"}
    ctx = mp.get_context("spawn")
    with ctx.Pool(2, initializer=init_worker, initargs=(DEVICE_MAP,)) as pool:
        pool.map(place, ["encoder", "decoder"])
