# hazard: a helper changes the fields of the module's options object through its parameter; forkserver workers import the module again and see the options the constructor wrote
import multiprocessing as mp

import torch


class Options:
    def __init__(self):
        self.threshold = 0.5


OPTIONS = Options()


def apply_cli(opts, threshold):
    opts.threshold = threshold


def classify(score):
    return bool(torch.tensor(score) > OPTIONS.threshold)  # expect: GPU013


if __name__ == "__main__":
    apply_cli(OPTIONS, 0.9)
    ctx = mp.get_context("forkserver")
    with ctx.Pool(2) as pool:
        print(pool.map(classify, [0.3, 0.7, 0.95]))
