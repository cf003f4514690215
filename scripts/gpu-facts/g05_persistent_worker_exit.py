# a collate_fn closure holding a pinned tensor; persistent workers shut down at the end
import torch
from torch.utils.data import DataLoader
if __name__ == "__main__":
    torch.zeros(1, device="cuda")
    scale = torch.ones(1).pin_memory()
    def collate(batch):
        return torch.tensor(batch) * 2
    dl = DataLoader(list(range(8)), batch_size=4, num_workers=2, collate_fn=collate, persistent_workers=True)
    print([int(b.sum()) for b in dl]); del dl
    print("done")
