# hazard: the parent's CPU matrix product starts torch's OpenMP pool; the forked pool workers multiply too and wait for threads they do not have.
import multiprocessing as mp

import torch


def project(seed):
    generator = torch.Generator().manual_seed(seed)
    basis = torch.randn(256, 64, generator=generator)
    sample = torch.randn(32, 256)
    return (sample @ basis).norm().item()


def main():
    features = torch.randn(4096, 256)
    gram = features.T @ features
    print("trace", gram.trace().item())
    with mp.Pool(4) as pool:  # expect: GPU014
        print(pool.map(project, range(16)))


if __name__ == "__main__":
    main()
