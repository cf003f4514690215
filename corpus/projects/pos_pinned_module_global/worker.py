"""Each spawned rank re-imports serving.model, which puts `net` on cuda:0 whatever the rank chose."""
import torch
import torch.multiprocessing as mp

from serving.model import net


def serve(rank):
    torch.cuda.set_device(rank)
    x = torch.randn(2, 8, device=f"cuda:{rank}")
    return net(x)


if __name__ == "__main__":
    mp.spawn(serve, nprocs=torch.cuda.device_count())
