# hazard: the loader's spawned workers re-import the script, whose body iterates the loader again before the worker is ready
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, i):
        return torch.tensor([i * i], dtype=torch.float32)


loader = DataLoader(Squares(), batch_size=8, num_workers=2, multiprocessing_context="spawn")  # expect: GPU004
total = 0.0
for batch in loader:
    total += float(batch.sum())
print(total)
