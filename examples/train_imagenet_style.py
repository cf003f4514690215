"""Distributed image-classification training, launched with torchrun.

    torchrun --nproc_per_node=8 train_imagenet_style.py --data /datasets/imagenet

Each rank binds its GPU before joining the NCCL group; DataLoader workers only
decode and augment on the CPU, and batches move to the GPU in the training loop.
"""
import argparse
import logging
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, models, transforms

log = logging.getLogger("train")


def parse_args():
    parser = argparse.ArgumentParser(description="ImageNet-style DDP training")
    parser.add_argument("--data", required=True, help="root with train/ and val/ folders")
    parser.add_argument("--arch", default="resnet50")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=256, help="per GPU")
    parser.add_argument("--workers", type=int, default=8, help="DataLoader workers per GPU")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--resume", default="", help="checkpoint to resume from")
    return parser.parse_args()


def setup_distributed():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")
    return local_rank


def build_loaders(root, batch_size, workers):
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_set = datasets.ImageFolder(
        os.path.join(root, "train"),
        transforms.Compose([
            transforms.RandomResizedCrop(224),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            normalize,
        ]),
    )
    val_set = datasets.ImageFolder(
        os.path.join(root, "val"),
        transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]),
    )
    train_sampler = DistributedSampler(train_set)
    train_loader = DataLoader(
        train_set, batch_size=batch_size, sampler=train_sampler,
        num_workers=workers, pin_memory=True, drop_last=True,
    )
    val_loader = DataLoader(
        val_set, batch_size=batch_size, sampler=DistributedSampler(val_set, shuffle=False),
        num_workers=workers, pin_memory=True,
    )
    return train_loader, val_loader, train_sampler


def train_one_epoch(model, loader, criterion, optimizer, epoch):
    model.train()
    start = time.time()
    for step, (images, target) in enumerate(loader):
        images = images.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        loss = criterion(model(images), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 100 == 0 and dist.get_rank() == 0:
            log.info("epoch %d step %d loss %.4f (%.1fs)", epoch, step, loss.item(), time.time() - start)


@torch.no_grad()
def validate(model, loader):
    model.eval()
    correct = torch.zeros(1, device="cuda")
    seen = torch.zeros(1, device="cuda")
    for images, target in loader:
        images = images.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        correct += (model(images).argmax(dim=1) == target).sum()
        seen += target.numel()
    dist.all_reduce(correct)
    dist.all_reduce(seen)
    return (correct / seen).item()


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    local_rank = setup_distributed()

    model = models.__dict__[args.arch](weights=None).cuda()
    model = DDP(model, device_ids=[local_rank])
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)

    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location=f"cuda:{local_rank}")
        model.module.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1

    train_loader, val_loader, train_sampler = build_loaders(args.data, args.batch_size, args.workers)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, criterion, optimizer, epoch)
        acc = validate(model, val_loader)
        scheduler.step()
        if dist.get_rank() == 0:
            log.info("epoch %d top-1 %.3f", epoch, acc)
            torch.save(
                {"model": model.module.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
                "checkpoint.pt",
            )
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
