# silent: the target sets the global from its own argument before anything reads it, so the child never reads the import-time value
import torch
import torch.multiprocessing as mp

RANK_DEVICE = None


def use_device():
    return torch.ones(1, device=RANK_DEVICE)


def worker(rank):
    global RANK_DEVICE
    RANK_DEVICE = f"cuda:{rank}"
    torch.cuda.set_device(rank)
    use_device()


if __name__ == "__main__":
    RANK_DEVICE = "cuda:0"
    mp.spawn(worker, nprocs=2)
