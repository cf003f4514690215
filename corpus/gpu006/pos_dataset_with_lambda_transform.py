# hazard: the dataset is pickled for every spawned loader worker, and it holds a lambda as its transform
import torch
from torch.utils.data import DataLoader, Dataset


class Scans(Dataset):
    def __init__(self, paths):
        self.paths = paths
        self.transform = lambda t: (t - t.mean()) / (t.std() + 1e-6)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return self.transform(torch.load(self.paths[i], map_location="cpu"))


def main(paths):
    loader = DataLoader(Scans(paths), num_workers=2, multiprocessing_context="spawn")  # expect: GPU006
    for scan in loader:
        print(scan.cuda().sum())


if __name__ == "__main__":
    main(["scan0.pt", "scan1.pt"])
