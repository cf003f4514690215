# silent: DataLoader workers read CPU feature files; they are not per-GPU processes
import torch
from torch.utils.data import DataLoader, Dataset


class Features(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return torch.load(self.paths[i])


def main():
    loader = DataLoader(Features(["a.pt", "b.pt"]), batch_size=2, num_workers=2)
    model = torch.nn.Linear(4, 1).cuda()
    for batch in loader:
        model(batch.cuda())


if __name__ == "__main__":
    main()
