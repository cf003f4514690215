# silent: the dataset holds an ordinary CPU tensor (not pinned), so forked workers inherit nothing CUDA-backed after the parent's model.cuda().
import torch
from torch.utils.data import DataLoader, Dataset


class Tokens(Dataset):
    def __init__(self, count):
        self.table = torch.arange(count * 128).reshape(count, 128)

    def __len__(self):
        return len(self.table)

    def __getitem__(self, index):
        return self.table[index]


if __name__ == "__main__":
    model = torch.nn.Embedding(50_000, 64).cuda()
    for batch in DataLoader(Tokens(64), batch_size=16, num_workers=2, pin_memory=True):
        print(model(batch.cuda()).shape)
