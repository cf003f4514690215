# hazard: the dataset keeps a pinned lookup table it never reads in __getitem__; each forked worker still holds it and frees it at exit, which aborts under torch 2.11 after the parent initialised CUDA.
import torch
from torch.utils.data import DataLoader, Dataset


class Tokens(Dataset):
    def __init__(self, count):
        self.count = count
        self.staging = torch.empty(count, 128, dtype=torch.int64).pin_memory()

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        return torch.full((128,), index % 50_000)


def main():
    model = torch.nn.Embedding(50_000, 64).cuda()
    loader = DataLoader(Tokens(256), batch_size=32, num_workers=4)  # expect: GPU001
    for batch in loader:
        out = model(batch.cuda(non_blocking=True))
        print(out.shape)


if __name__ == "__main__":
    main()
