# hazard: forkserver preloads __main__, so this module-level CUDA tensor initialises CUDA in the server that forks every worker.
import multiprocessing as mp

import torch

LOOKUP = torch.linspace(0, 1, 4096).cuda()


def quantise(values, results):
    t = torch.tensor(values, device="cuda")
    idx = torch.bucketize(t, LOOKUP)
    results.put(idx.cpu().tolist())


def main():
    ctx = mp.get_context("forkserver")
    inputs = [[0.1, 0.5, 0.9]] * 4
    results = ctx.SimpleQueue()
    workers = [ctx.Process(target=quantise, args=(v, results)) for v in inputs]
    for w in workers:
        w.start()  # expect: GPU001
    for w in workers:
        w.join()
    print([results.get() for _ in inputs])


if __name__ == "__main__":
    main()
