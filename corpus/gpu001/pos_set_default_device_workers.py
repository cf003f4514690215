# hazard: set_default_device("cuda") makes the parent's model CUDA and every tensor the forked workers create CUDA too.
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, series, width):
        self.series = series
        self.width = width

    def __len__(self):
        return len(self.series) - self.width

    def __getitem__(self, i):
        window = torch.tensor(self.series[i:i + self.width], dtype=torch.float32)
        target = torch.tensor(self.series[i + self.width], dtype=torch.float32)
        return window, target


def main():
    torch.set_default_device("cuda")
    model = nn.Sequential(nn.Linear(24, 32), nn.ReLU(), nn.Linear(32, 1))
    series = [float(i % 24) for i in range(5000)]
    loader = DataLoader(Windows(series, 24), batch_size=64, num_workers=2)  # expect: GPU001
    opt = torch.optim.Adam(model.parameters())
    for window, target in loader:
        loss = (model(window).squeeze(-1) - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
