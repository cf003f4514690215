# silent: the workers come from a spawn context, fresh interpreters with their own thread pools.
import multiprocessing as mp

import torch


def project(seed):
    basis = torch.randn(256, 64)
    return (torch.randn(32, 256) @ basis).norm().item()


if __name__ == "__main__":
    features = torch.randn(4096, 256)
    gram = features.T @ features
    with mp.get_context("spawn").Pool(4) as pool:
        print(pool.map(project, range(8)), gram.trace().item())
