# silent: the worker sets its device first, so "cuda" means its own GPU
import torch
import torch.multiprocessing as mp


def infer(rank):
    torch.cuda.set_device(rank)
    net = torch.nn.Linear(4, 2).to(f"cuda:{rank}")
    batch = torch.randn(8, 4).cuda()
    print(net(batch))


if __name__ == "__main__":
    mp.spawn(infer, nprocs=torch.cuda.device_count())
