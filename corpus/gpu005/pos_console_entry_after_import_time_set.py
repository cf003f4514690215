# hazard: importing the module asks for the start method, which fixes it, so the console-script entry's own call raises "context has already been set"
import multiprocessing as mp

import torch

METHOD_AT_IMPORT = mp.get_start_method()


def load_shard(rank):
    print(float(torch.ones(2, device=f"cuda:{rank}").sum()))


def develop():
    print(METHOD_AT_IMPORT)
    load_shard(0)


def serve():
    mp.set_start_method("spawn")  # expect: GPU005(error)
    workers = [mp.Process(target=load_shard, args=(r,)) for r in range(4)]
    for w in workers:
        w.start()


if __name__ == "__main__":
    develop()
