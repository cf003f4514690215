# silent: `serve` is a console-script entry, run after a plain import; only the main block, which calls `develop`, set the method before
import multiprocessing as mp

import torch


def load_shard(rank):
    print(float(torch.ones(2, device=f"cuda:{rank}").sum()))


def develop():
    workers = [mp.Process(target=load_shard, args=(r,)) for r in range(2)]
    for w in workers:
        w.start()


def serve():
    mp.set_start_method("spawn")
    workers = [mp.Process(target=load_shard, args=(r,)) for r in range(4)]
    for w in workers:
        w.start()


if __name__ == "__main__":
    mp.set_start_method("spawn", force=True)
    develop()
