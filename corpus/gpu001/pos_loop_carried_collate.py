# hazard: epoch 1 workers fork from a clean parent, but the CUDA batches they return initialise CUDA there, so epoch 2 forks after init.
import torch
from torch.utils.data import DataLoader, Dataset


class Features(Dataset):
    def __init__(self, n_rows, n_cols):
        self.x = torch.randn(n_rows, n_cols)
        self.y = (self.x.sum(dim=1) > 0).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def collate_on_gpu(samples):
    xs = torch.stack([s[0] for s in samples])
    ys = torch.stack([s[1] for s in samples])
    return xs.to(torch.device("cuda")), ys.to(torch.device("cuda"))


def fit(epochs):
    ds = Features(10_000, 20)
    loader = DataLoader(ds, batch_size=64, shuffle=True, num_workers=2, collate_fn=collate_on_gpu)  # expect: GPU001
    model = None
    opt = None
    for epoch in range(epochs):
        for xb, yb in loader:
            if model is None:
                # input width is only known once the first batch arrives
                model = torch.nn.Linear(xb.shape[1], 2).cuda()
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.3f}")


if __name__ == "__main__":
    fit(epochs=5)
