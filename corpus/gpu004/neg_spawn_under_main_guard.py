# silent: the spawn is under the main guard, so a child's re-import defines the function and stops there
import torch
import torch.multiprocessing as mp


def train(rank, steps):
    torch.cuda.set_device(rank)
    weights = torch.randn(64, 64, device="cuda")
    for _ in range(steps):
        weights = weights @ weights.T / 64


if __name__ == "__main__":
    mp.spawn(train, args=(10,), nprocs=2)
