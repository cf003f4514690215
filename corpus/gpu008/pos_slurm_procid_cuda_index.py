# hazard: SLURM_PROCID is the task's index in the whole allocation, not on its node
import os

import torch


def main():
    task = int(os.environ["SLURM_PROCID"])
    weights = torch.randn(256, 256).cuda(task)  # expect: GPU008
    print(weights.sum())


if __name__ == "__main__":
    main()
