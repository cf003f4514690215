import torch
from torch.utils.data import DataLoader, Dataset
class DS(Dataset):
    def __init__(self):
        self.table = torch.arange(8.0, device="cuda")
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return i * 2
if __name__ == "__main__":
    ds = DS()
    out = [int(b.sum()) for b in DataLoader(ds, batch_size=4, num_workers=2)]
    print("batches", out)
