# silent: model.cuda() then DataLoader workers that only decode and augment on the CPU (the standard imagenet-style loop).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms


def build_loader(root, batch_size, workers):
    tfm = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    train_set = datasets.ImageFolder(root, transform=tfm)
    return DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=workers, pin_memory=True)


def train_one_epoch(model, loader, criterion, optimizer):
    model.train()
    for images, target in loader:
        images = images.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    model = models.resnet50(weights=None).cuda()
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loader = build_loader("/data/imagenet/train", batch_size=256, workers=8)
    for epoch in range(90):
        train_one_epoch(model, loader, criterion, optimizer)


if __name__ == "__main__":
    main()
