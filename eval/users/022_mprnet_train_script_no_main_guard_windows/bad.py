import torch
from torch.utils.data import DataLoader, Dataset

from model import MPRNet


class PairedImages(Dataset):
    def __init__(self, root):
        self.items = sorted(torch.load(root + "/index.pt"))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        blurry, sharp = self.items[idx]
        return blurry, sharp


model = MPRNet().cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
train_loader = DataLoader(PairedImages("datasets/train"), batch_size=16, shuffle=True, num_workers=4, drop_last=True)

for epoch in range(3000):
    for blurry, sharp in train_loader:
        optimizer.zero_grad()
        restored = model(blurry.cuda())
        loss = torch.nn.functional.l1_loss(restored[0], sharp.cuda())
        loss.backward()
        optimizer.step()
