# silent: the parent only re-reads the environment into the class attribute (the same expression the class body uses), and a spawned child, which inherits the environment, computes the same value when it imports the module
import os
import multiprocessing as mp

import torch


class Kernels:
    FUSED = os.environ.get("USE_FUSED_KERNELS", "0") == "1"

    @classmethod
    def reload(cls):
        cls.FUSED = os.environ.get("USE_FUSED_KERNELS", "0") == "1"


def score(seed):
    weights = torch.ones(4, device="cuda")
    if Kernels.FUSED:
        return (weights * seed).sum().item()
    return weights.sum().item() * seed


def main():
    os.environ["USE_FUSED_KERNELS"] = "1"
    Kernels.reload()
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(score, [1, 2]))


if __name__ == "__main__":
    main()
