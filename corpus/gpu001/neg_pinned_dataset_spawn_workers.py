# silent: the dataset holds pinned memory, but the workers start by spawn and receive their own copy by pickle; nothing is inherited from the initialised parent.
import torch
from torch.utils.data import DataLoader, Dataset


class Staged(Dataset):
    def __init__(self):
        self.staging = torch.zeros(64, 32).pin_memory()

    def __len__(self):
        return 64

    def __getitem__(self, index):
        return index


if __name__ == "__main__":
    torch.cuda.init()
    loader = DataLoader(Staged(), batch_size=8, num_workers=2, multiprocessing_context="spawn")
    print([int(b.sum()) for b in loader])
