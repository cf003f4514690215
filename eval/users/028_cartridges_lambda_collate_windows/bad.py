import torch
from torch.utils.data import DataLoader, Dataset


class Conversations(Dataset):
    def __init__(self, path):
        self.rows = torch.load(path)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        return self.rows[idx]


def train(path, model, steps):
    dataset = Conversations(path)
    dataloader = DataLoader(dataset, batch_size=1, shuffle=True, collate_fn=lambda x: x[0], num_workers=1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step, batch in zip(range(steps), dataloader):
        loss = model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    train("data/train.pt", torch.load("model.pt", weights_only=False), 1000)
