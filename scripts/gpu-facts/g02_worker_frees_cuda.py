import torch, gc
from torch.utils.data import DataLoader, Dataset, get_worker_info
class DS(Dataset):
    def __init__(self):
        self.table = torch.arange(8.0, device="cuda")
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return i
def drop(_):
    get_worker_info().dataset.table = None
    gc.collect()
if __name__ == "__main__":
    out = [int(b.sum()) for b in DataLoader(DS(), batch_size=4, num_workers=2, worker_init_fn=drop)]
    print("batches", out)
