"""Train a segmentation model with heavy augmentation done on the GPU inside the Dataset.

    python gpu_augment_dataset.py --images data/images --masks data/masks

Bug: the model is moved to the GPU first, then the DataLoader forks its workers,
and __getitem__ sends every sample to CUDA for augmentation. The workers fail
with "Cannot re-initialize CUDA in forked subprocess".
"""
import argparse
import logging
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger("seg")


class GpuAugment:
    """Random rotation, scale and colour jitter, computed with affine grids on the GPU."""

    def __init__(self, max_angle=20.0, scale=(0.8, 1.2), jitter=0.2, device="cuda"):
        self.max_angle = max_angle
        self.scale = scale
        self.jitter = jitter
        self.device = device

    def __call__(self, image, mask):
        image = image.to(self.device).unsqueeze(0)
        mask = mask.to(self.device).unsqueeze(0).unsqueeze(0).float()
        angle = math.radians(np.random.uniform(-self.max_angle, self.max_angle))
        s = np.random.uniform(*self.scale)
        theta = torch.tensor(
            [[s * math.cos(angle), -s * math.sin(angle), 0.0], [s * math.sin(angle), s * math.cos(angle), 0.0]],
            device=self.device,
        ).unsqueeze(0)
        grid = F.affine_grid(theta, image.shape, align_corners=False)
        image = F.grid_sample(image, grid, align_corners=False)
        mask = F.grid_sample(mask, grid, mode="nearest", align_corners=False)
        image = image * (1.0 + self.jitter * (torch.rand(1, 3, 1, 1, device=self.device) - 0.5))
        return image.squeeze(0).clamp(0, 1), mask.squeeze(0).squeeze(0).long()


class SegmentationFolder(Dataset):
    def __init__(self, image_dir, mask_dir, augment=None):
        self.image_dir = image_dir
        self.mask_dir = mask_dir
        self.names = sorted(os.listdir(image_dir))
        self.augment = augment

    def __len__(self):
        return len(self.names)

    def __getitem__(self, idx):
        name = self.names[idx]
        image = np.asarray(Image.open(os.path.join(self.image_dir, name)).convert("RGB").resize((256, 256)))
        mask = np.asarray(Image.open(os.path.join(self.mask_dir, name)).resize((256, 256)))
        image = torch.from_numpy(image).permute(2, 0, 1).float() / 255.0
        mask = torch.from_numpy(mask.astype(np.int64))
        if self.augment is not None:
            image, mask = self.augment(image, mask)
        return image, mask


class TinyUNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.mid = nn.Sequential(nn.Conv2d(32, 64, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.out = nn.Conv2d(32, classes, 1)

    def forward(self, x):
        return self.out(F.relu(self.up(self.mid(self.down(x)))))


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--images", required=True)
    p.add_argument("--masks", required=True)
    p.add_argument("--classes", type=int, default=21)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--workers", type=int, default=6)
    return p.parse_args()


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO)
    device = torch.device("cuda")
    model = TinyUNet(args.classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    dataset = SegmentationFolder(args.images, args.masks, augment=GpuAugment(device="cuda"))
    loader = DataLoader(  # expect: GPU001
        dataset,
        batch_size=args.batch_size,
        shuffle=True,
        num_workers=args.workers,
        drop_last=True,
    )

    for epoch in range(args.epochs):
        model.train()
        for images, masks in loader:
            loss = F.cross_entropy(model(images), masks)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        log.info("epoch %d loss %.4f", epoch, loss.item())
        torch.save(model.state_dict(), f"unet_epoch{epoch:03d}.pt")


if __name__ == "__main__":
    main()
