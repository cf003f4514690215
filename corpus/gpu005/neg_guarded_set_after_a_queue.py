# silent: the queue fixed the start method, so `get_start_method(allow_none=True)` is not None
# and neither guarded set_start_method runs
import multiprocessing as mp

import torch

jobs = mp.Queue()


def work(queue):
    queue.put(torch.ones(2).sum().item())


def launch():
    if not mp.get_start_method(allow_none=True):
        mp.set_start_method("spawn")
    mp.Process(target=work, args=(jobs,)).start()


if __name__ == "__main__":
    if mp.get_start_method(allow_none=True) is None:
        mp.set_start_method("spawn")
    launch()
