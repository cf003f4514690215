"""Fine-tune a small text classifier with DDP (torchrun --nproc_per_node=4 ddp_setup_wrong.py).

Bug: the NCCL process group is created before the rank binds its GPU, and rank 0
prepares the data behind a barrier in between. That barrier is the first
collective, so on every rank it runs on GPU 0 ("Duplicate GPU detected" or a hang).
"""
import argparse
import logging
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

log = logging.getLogger("finetune")


class TokenizedReviews(Dataset):
    def __init__(self, path, max_len=128):
        self.rows = torch.load(path, map_location="cpu")
        self.max_len = max_len

    def __len__(self):
        return len(self.rows["labels"])

    def __getitem__(self, i):
        ids = self.rows["input_ids"][i][: self.max_len]
        padded = torch.zeros(self.max_len, dtype=torch.long)
        padded[: len(ids)] = ids
        return padded, self.rows["labels"][i]


class BagClassifier(nn.Module):
    def __init__(self, vocab_size=30522, dim=256, classes=2):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab_size, dim, mode="mean", padding_idx=0)
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, classes))

    def forward(self, ids):
        return self.head(self.emb(ids))


def prepare_cache(data_dir):
    cache = os.path.join(data_dir, "reviews.pt")
    if not os.path.exists(cache):
        log.info("building token cache at %s", cache)
        fake = {"input_ids": [torch.randint(1, 30522, (96,)) for _ in range(10_000)],
                "labels": torch.randint(0, 2, (10_000,))}
        torch.save(fake, cache)
    return cache


def setup(data_dir):
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group(backend="nccl")  # expect: GPU003(error)
    if dist.get_rank() == 0:
        prepare_cache(data_dir)
    dist.barrier()  # other ranks wait for the cache
    torch.cuda.set_device(local_rank)
    return local_rank


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="./data")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-3)
    return p.parse_args()


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO)
    os.makedirs(args.data_dir, exist_ok=True)
    local_rank = setup(args.data_dir)

    dataset = TokenizedReviews(os.path.join(args.data_dir, "reviews.pt"))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler,
                        num_workers=args.workers, pin_memory=True)

    model = DDP(BagClassifier().cuda(), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total = torch.zeros(1, device="cuda")
        for ids, labels in loader:
            ids, labels = ids.cuda(non_blocking=True), labels.cuda(non_blocking=True)
            loss = criterion(model(ids), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.detach()
        dist.all_reduce(total)
        if dist.get_rank() == 0:
            log.info("epoch %d mean loss %.4f", epoch, total.item() / (len(loader) * dist.get_world_size()))

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
