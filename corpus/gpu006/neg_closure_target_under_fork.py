# silent: a forked child inherits the parent's memory, closure included: nothing is pickled for a fork context's Process target
import multiprocessing as mp

import torch


def run_all(paths):
    def convert(path):
        state = torch.load(path, map_location="cpu")
        torch.save({k: v.half() for k, v in state.items()}, path + ".fp16")

    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=convert, args=(p,)) for p in paths]
    for p in procs:
        p.start()
    for p in procs:
        p.join()


if __name__ == "__main__":
    run_all(["a.pt", "b.pt"])
