# silent: every pool worker limits torch to one thread in its initializer before any matrix product, so no inherited OpenMP pool is needed.
import multiprocessing as mp

import torch


def project(seed):
    basis = torch.randn(256, 64)
    sample = torch.randn(32, 256)
    return (sample @ basis).norm().item()


if __name__ == "__main__":
    features = torch.randn(4096, 256)
    gram = features.T @ features
    with mp.Pool(4, initializer=torch.set_num_threads, initargs=(1,)) as pool:
        print(pool.map(project, range(8)), gram.shape)
