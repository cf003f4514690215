# silent: every placement names the worker's device
import torch
import torch.multiprocessing as mp


def infer(rank):
    device = torch.device(f"cuda:{rank}")
    net = torch.nn.Linear(4, 2).to(device)
    batch = torch.randn(8, 4, device=device)
    print(net(batch))


if __name__ == "__main__":
    mp.spawn(infer, nprocs=2)
