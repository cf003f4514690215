# silent: DataLoader workers set torch to one thread before they run the dataset, so their matrix products need no inherited pool.
import torch
from torch.utils.data import DataLoader, Dataset


class Projected(Dataset):
    def __init__(self, size):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        basis = torch.randn(64, 16)
        return torch.randn(64) @ basis


if __name__ == "__main__":
    warm = torch.randn(1024, 1024)
    warm = warm @ warm
    for batch in DataLoader(Projected(32), batch_size=8, num_workers=2):
        print(batch.shape, warm.shape)
