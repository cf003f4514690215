# silent: torch.cuda.manual_seed() before CUDA init is only queued, so the parent is still clean when the Pool forks.
import argparse
from multiprocessing import Pool

import torch


def simulate(trial):
    torch.cuda.manual_seed(trial)
    paths = torch.randn(10_000, 252, device="cuda").cumsum(dim=1)
    return paths[:, -1].mean().item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--trials", type=int, default=16)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.cuda.manual_seed(args.seed)
    with Pool(4) as pool:
        means = pool.map(simulate, range(args.trials))
    print(sum(means) / len(means))


if __name__ == "__main__":
    main()
