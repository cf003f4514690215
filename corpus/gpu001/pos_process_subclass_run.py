# hazard: a Process subclass whose run() moves its model to CUDA is started after the parent already used the GPU.
import torch
import torch.multiprocessing as tmp
from torch import nn


class Autoencoder(nn.Module):
    def __init__(self, dim=784, code=32):
        super().__init__()
        self.enc = nn.Linear(dim, code)
        self.dec = nn.Linear(code, dim)

    def forward(self, x):
        return self.dec(torch.relu(self.enc(x)))


class TrainerProcess(tmp.Process):
    def __init__(self, fold, epochs):
        super().__init__(name=f"fold-{fold}")
        self.fold = fold
        self.epochs = epochs

    def _build(self):
        return Autoencoder().cuda()

    def run(self):
        model = self._build()
        opt = torch.optim.Adam(model.parameters())
        for _ in range(self.epochs):
            x = torch.rand(256, 784).cuda()
            loss = (model(x) - x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


def sanity_check():
    probe = Autoencoder().cuda()
    assert probe(torch.rand(2, 784, device="cuda")).shape == (2, 784)


if __name__ == "__main__":
    sanity_check()
    trainers = [TrainerProcess(fold, epochs=10) for fold in range(5)]
    for t in trainers:
        t.start()  # expect: GPU001
    for t in trainers:
        t.join()
