# hazard: the same helper forks its pool when the caller asks for four workers, after the caller initialised CUDA: the forked workers' CUDA calls fail.
import multiprocessing as mp

import torch


def scale(x):
    return torch.ones(1, device="cuda") * x


def map_items(fn, items, workers=None):
    if workers is None:
        workers = 1
    if workers <= 1 or len(items) < 2:
        return [fn(x) for x in items]
    with mp.Pool(workers) as pool:  # expect: GPU001
        return pool.map(fn, items)


class Scaler:
    def __init__(self):
        self.device = torch.device("cuda", torch.cuda.current_device())

    def run(self, items):
        return map_items(scale, items, workers=4)


if __name__ == "__main__":
    print(Scaler().run([1, 2, 3]))
