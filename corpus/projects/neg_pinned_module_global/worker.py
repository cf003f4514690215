"""Each rank builds its own copy on the device it chose."""
import torch
import torch.multiprocessing as mp

from serving.model import load


def serve(rank):
    torch.cuda.set_device(rank)
    net = load(f"cuda:{rank}")
    x = torch.randn(2, 8, device=f"cuda:{rank}")
    return net(x)


if __name__ == "__main__":
    mp.spawn(serve, nprocs=torch.cuda.device_count())
