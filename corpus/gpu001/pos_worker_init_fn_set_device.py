# hazard: worker_init_fn calls torch.cuda.set_device inside workers forked after the parent moved the model to CUDA.
import argparse
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

GPU_INDEX = 0


def seed_and_pin(worker_id):
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed + worker_id)
    random.seed(seed + worker_id)
    torch.cuda.set_device(GPU_INDEX)


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-workers", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=128)
    return ap.parse_args()


def main():
    args = parse_args()
    net = torch.nn.Linear(32, 1).to(f"cuda:{GPU_INDEX}")
    data = TensorDataset(torch.randn(4096, 32), torch.randn(4096, 1))
    loader = DataLoader(  # expect: GPU001
        data,
        batch_size=args.batch_size,
        num_workers=args.num_workers,
        worker_init_fn=seed_and_pin,
    )
    for x, y in loader:
        x, y = x.to(f"cuda:{GPU_INDEX}"), y.to(f"cuda:{GPU_INDEX}")
        torch.nn.functional.mse_loss(net(x), y).backward()


if __name__ == "__main__":
    main()
