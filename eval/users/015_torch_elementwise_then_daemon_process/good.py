import torch
import torch.multiprocessing as mp


def map_fn(index):
    t1 = torch.randn(300, 300) + torch.randn(300, 300)
    print(index, t1.mean().item())


if __name__ == "__main__":
    t0 = torch.randn(300, 300) + torch.randn(300, 300)
    mp.spawn(map_fn, nprocs=1)
