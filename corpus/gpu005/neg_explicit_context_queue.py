# silent: the queue comes from an explicit spawn context, which leaves the default context alone
import multiprocessing as mp

import torch


def fill(rank, queue):
    queue.put(float(torch.full((2,), 1.0, device=f"cuda:{rank}").sum()))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    mp.set_start_method("spawn")
    procs = [ctx.Process(target=fill, args=(r, queue)) for r in range(2)]
    for p in procs:
        p.start()
