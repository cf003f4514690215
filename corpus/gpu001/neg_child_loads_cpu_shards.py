# silent: torch.load without map_location is an unknown device (HAZARDS table); the shards hold CPU tensors
"""The parent uses the GPU, then merges checkpoint shards in a process pool. The shards were written
from CPU tensors by this program, so `torch.load` without map_location returns CPU tensors: the
children never touch CUDA. (gpulint cannot know where a file's tensors were saved from, so it does
not count such a load as CUDA use.)"""
import glob
from concurrent.futures import ProcessPoolExecutor

import torch


def merge(paths):
    parts = [torch.load(p) for p in paths]
    return torch.cat(parts).sum().item()


def main():
    torch.cuda.synchronize()
    groups = [sorted(glob.glob(f"shards/{i}_*.pt")) for i in range(8)]
    with ProcessPoolExecutor(4) as pool:
        return list(pool.map(merge, groups))


if __name__ == "__main__":
    main()
