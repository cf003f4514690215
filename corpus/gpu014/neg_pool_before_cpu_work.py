# silent: the pool forks its workers before the parent's first CPU matrix product, so they start with no thread pool to inherit.
import multiprocessing as mp

import torch


def project(seed):
    basis = torch.randn(256, 64)
    return (torch.randn(32, 256) @ basis).norm().item()


def main():
    with mp.Pool(4) as pool:
        pending = pool.map_async(project, range(8))
        features = torch.randn(4096, 256)
        gram = features.T @ features
        print(pending.get(), gram.trace().item())


if __name__ == "__main__":
    main()
