# silent: the forced call asks for spawn while spawn is already in force, so nothing made before changes its method
import multiprocessing as mp

import torch


def embed(rank, results):
    results.put(float(torch.ones(8, device=f"cuda:{rank}").sum()))


def ensure_spawn():
    mp.set_start_method("spawn", force=True)


if __name__ == "__main__":
    mp.set_start_method("spawn")
    results = mp.Queue()
    ensure_spawn()
    workers = [mp.Process(target=embed, args=(r, results)) for r in range(2)]
    for w in workers:
        w.start()
