# silent: the module's usage line launches it with torchrun on one machine, so the global rank is the local one
"""Measures all-reduce bandwidth between the GPUs of one machine.

Usage:
    torchrun --nproc_per_node=4 neg_usage_in_docstring_one_node.py --size 64
"""
import time

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    device = torch.device(f"cuda:{dist.get_rank()}")
    payload = torch.ones(1 << 20, device=device)
    start = time.perf_counter()
    payload.mul_(2)
    print(time.perf_counter() - start)


if __name__ == "__main__":
    main()
