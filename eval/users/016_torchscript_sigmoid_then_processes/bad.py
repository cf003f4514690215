import torch
from torch.multiprocessing import Process


class Gate(torch.nn.Module):
    def forward(self, x):
        return torch.sigmoid(x)


def score(rank):
    xs = torch.randn((5, 3), dtype=torch.float32)
    net = torch.jit.script(Gate())
    print(rank, net(xs))


if __name__ == "__main__":
    xs = torch.randn((5, 3), dtype=torch.float32)
    net = torch.jit.script(Gate())
    print(net(xs))
    procs = []
    for rank in range(2):
        p = Process(target=score, args=(rank,))
        p.start()
        procs.append(p)
    for p in procs:
        p.join()
