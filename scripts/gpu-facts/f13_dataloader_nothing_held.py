import torch
from torch.utils.data import DataLoader, Dataset
class DS(Dataset):
    def __init__(self):
        self.table = list(range(8))
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return self.table[i] * 2
if __name__ == "__main__":
    model = torch.nn.Linear(2, 2).cuda()
    out = [int(b.sum()) for b in DataLoader(DS(), batch_size=4, num_workers=2)]
    print("batches", out)
