# silent: the spawned workers call a library module's reader; the per-GPU start is in this file, the load in another whose files the library chose (GPU009 asks for both in one file)
import torch.multiprocessing as mp

from shards.reader import read_shard


def work(index, paths):
    part = read_shard(paths[index])
    return len(part)


if __name__ == "__main__":
    mp.spawn(work, args=(["a.pt", "b.pt"],), nprocs=2)
