import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __init__(self, count):
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        frame = torch.randn(64)
        return frame.cuda()


def make_loader(workers):
    return DataLoader(Frames(1000), batch_size=32, num_workers=workers)  # expect: GPU001
