# hazard: the transform only moves to the GPU on one branch that returns early, but that branch runs in forked DataLoader workers.
import torch
from torch.utils.data import DataLoader, Dataset


class MaybeToGpu:
    def __init__(self, enabled):
        self.enabled = enabled

    def __call__(self, frame):
        if self.enabled:
            return frame.cuda(non_blocking=True)
        return frame


class Frames(Dataset):
    def __init__(self, n, transform):
        self.n = n
        self.transform = transform

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.transform(torch.full((3, 64, 64), float(i)))


def train(epochs=1):
    net = torch.nn.Conv2d(3, 8, 3).cuda()
    loader = DataLoader(Frames(256, MaybeToGpu(True)), batch_size=8, num_workers=4)  # expect: GPU001
    for _ in range(epochs):
        for frames in loader:
            net(frames)


if __name__ == "__main__":
    train()
