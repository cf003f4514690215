# hazard: the worker count arrives through a **kwargs dict; workers are still forked after the CUDA default tensor type was set and the model created.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_batch_noise(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs) + torch.randn(len(xs), 16).cuda(), torch.stack(ys)


def main(use_cuda=True):
    loader_opts = {"num_workers": 2, "pin_memory": True} if use_cuda else {}
    if use_cuda:
        torch.cuda.set_device(0)
    model = nn.Linear(16, 4).cuda()
    data = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    loader = DataLoader(data, batch_size=32, collate_fn=make_batch_noise, **loader_opts)  # expect: GPU001
    for x, y in loader:
        model(x).sum().backward()


if __name__ == "__main__":
    main()
