# silent: the workers are a DataLoader's: they get no GPU of their own, and the parent picks its device for the model only
import os

import torch
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.full((4,), float(i))


def main():
    gpu = torch.device("cuda", int(os.environ.get("GPU_INDEX", "0")))
    net = torch.nn.Linear(4, 1).to(gpu)
    for batch in DataLoader(Windows(), batch_size=8, num_workers=2):
        net(batch.cuda())


if __name__ == "__main__":
    main()
