# silent: the helper forks a pool only when asked for more than one worker; this caller leaves the worker count at its default, so the helper maps in-process after CUDA is initialised and nothing forks.
import multiprocessing as mp

import torch


def scale(x):
    return torch.ones(1, device="cuda") * x


def map_items(fn, items, workers=None):
    if workers is None:
        workers = 1
    if workers <= 1 or len(items) < 2:
        return [fn(x) for x in items]
    with mp.Pool(workers) as pool:
        return pool.map(fn, items)


class Scaler:
    def __init__(self):
        self.device = torch.device("cuda", torch.cuda.current_device())

    def run(self, items):
        return map_items(scale, items)


if __name__ == "__main__":
    print(Scaler().run([1, 2, 3]))
