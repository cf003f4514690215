import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    """Decoded on the CPU; the training loop moves batches to the GPU."""

    def __init__(self, count):
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        return torch.randn(64)


def make_loader(workers):
    return DataLoader(Frames(1000), batch_size=32, num_workers=workers, pin_memory=True)
