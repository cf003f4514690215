# silent: num_workers=0 loads in the main process, so a Dataset that moves samples to CUDA involves no fork at all.
import torch
from torch.utils.data import DataLoader, Dataset


class OnDeviceSamples(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(3, 32, 32).to("cuda"), i % 10


def main():
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 10)).cuda()
    loader = DataLoader(OnDeviceSamples(1024), batch_size=64, shuffle=True, num_workers=0)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(net(x), y.cuda())
        loss.backward()


if __name__ == "__main__":
    main()
