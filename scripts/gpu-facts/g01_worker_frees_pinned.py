# torch 2.11: the forked worker frees an inherited pinned tensor (dataset drops it in worker_init_fn)
import torch, gc
from torch.utils.data import DataLoader, Dataset, get_worker_info
class DS(Dataset):
    def __init__(self):
        self.table = torch.arange(8.0).pin_memory()
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return i
def drop(_):
    ds = get_worker_info().dataset
    ds.table = None
    gc.collect()
if __name__ == "__main__":
    torch.zeros(1, device="cuda")
    out = [int(b.sum()) for b in DataLoader(DS(), batch_size=4, num_workers=2, worker_init_fn=drop)]
    print("batches", out)
