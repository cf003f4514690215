# hazard: torch.multiprocessing.spawn runs at import time: every spawned worker re-imports this script, reaches the spawn again and stops in its bootstrapping phase
import torch
import torch.multiprocessing as mp


def train(rank, steps):
    torch.cuda.set_device(rank)
    weights = torch.randn(64, 64, device="cuda")
    for _ in range(steps):
        weights = weights @ weights.T / 64


mp.spawn(train, args=(10,), nprocs=2)  # expect: GPU004
