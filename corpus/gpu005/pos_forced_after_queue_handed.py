# hazard: the queue was made under fork before the forced switch, and spawned workers are then handed it
import multiprocessing as mp

import torch

progress = mp.Queue()


def count(rank, queue):
    queue.put(int(torch.ones(3, device=f"cuda:{rank}").sum()))


def run():
    mp.set_start_method("spawn", force=True)  # expect: GPU005(warning)
    workers = [mp.Process(target=count, args=(r, progress)) for r in range(2)]
    for w in workers:
        w.start()


if __name__ == "__main__":
    run()
