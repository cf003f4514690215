# hazard: the Dataset builds a CUDA tensor in __init__ (in the parent); forked workers index it in __getitem__.
import torch
from torch.utils.data import DataLoader, Dataset


class EmbeddingPairs(Dataset):
    def __init__(self, num_items, dim, pairs):
        self.table = torch.randn(num_items, dim, device="cuda")
        self.pairs = pairs

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        a, b = self.pairs[idx]
        return self.table[a], self.table[b]


def main():
    pairs = [(i, (i * 7) % 1000) for i in range(1000)]
    ds = EmbeddingPairs(num_items=1000, dim=64, pairs=pairs)
    loader = DataLoader(ds, batch_size=50, num_workers=3)  # expect: GPU001
    sims = []
    for left, right in loader:
        sims.append(torch.cosine_similarity(left, right).mean().item())
    print(sum(sims) / len(sims))


if __name__ == "__main__":
    main()
