# silent: only a query fixed the start method, nothing was made with it, so forcing spawn is harmless
import multiprocessing as mp

import torch


def run(rank):
    torch.ones(2, device=f"cuda:{rank}")


if __name__ == "__main__":
    if mp.get_start_method() != "spawn":
        mp.set_start_method("spawn", force=True)
    mp.Process(target=run, args=(0,)).start()
