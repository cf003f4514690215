# silent: the repeated set_start_method raises in each child, but the except clause swallows it
import torch
import torch.multiprocessing as mp

try:
    mp.set_start_method("spawn")
except RuntimeError:
    pass


def fill(rank):
    torch.cuda.set_device(rank)
    torch.zeros(8, device="cuda")


if __name__ == "__main__":
    mp.spawn(fill, nprocs=2)
