# silent: the layers are built on the CPU but moved to the GPU before the parent calls them, so the parent's forward passes run on CUDA and start no CPU thread pool; the forked workers multiply on the CPU with nothing to inherit
import multiprocessing as mp

import torch


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(256, 16)

    def forward(self, x):
        return self.proj(x).softmax(-1)


def project(seed):
    generator = torch.Generator().manual_seed(seed)
    basis = torch.randn(256, 64, generator=generator)
    sample = torch.randn(32, 256)
    return (sample @ basis).norm().item()


def main():
    encoder = torch.nn.Linear(256, 256).to("cuda")
    head = Head().to("cuda")
    batch = torch.randn(4096, 256, device="cuda")
    print("mass", head(encoder(batch)).sum().item())
    with mp.Pool(4) as pool:
        print(pool.map(project, range(16)))


if __name__ == "__main__":
    main()
