import multiprocessing

import torch.nn as nn
import transformers  # noqa: F401


class TinyHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(10, 10)

    def forward(self, x):
        return self.linear(x)


def place_on_gpu(i):
    net = TinyHead().cuda()
    print(f"process {i} has {sum(p.numel() for p in net.parameters())} parameters on the GPU")


if __name__ == "__main__":
    with multiprocessing.Pool(4) as pool:
        pool.map(place_on_gpu, range(4))
