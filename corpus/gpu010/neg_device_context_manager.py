# silent: the worker's work runs under `with torch.cuda.device(rank):`, which makes it the current device
import torch
import torch.multiprocessing as mp


def infer(rank):
    with torch.cuda.device(rank):
        net = torch.nn.Linear(4, 2).to(f"cuda:{rank}")
        batch = torch.randn(8, 4).cuda()
        print(net(batch))


if __name__ == "__main__":
    mp.spawn(infer, nprocs=2)
