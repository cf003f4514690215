import torch
import torch.multiprocessing as mp


def noisy_sum(index):
    total = torch.randn(300, 300) + torch.randn(300, 300)
    print(index, total.mean().item())


if __name__ == "__main__":
    warmup = torch.randn(300, 300) + torch.randn(300, 300)
    mp.spawn(noisy_sum, nprocs=1)
