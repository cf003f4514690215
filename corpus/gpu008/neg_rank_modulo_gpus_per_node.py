# silent: the rank is reduced by the number of GPUs each machine has, as the command line gives it, so the index is one of this node's GPUs
import argparse
import os

import torch
import torch.distributed as dist


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus-per-node", type=int, default=8)
    args = parser.parse_args()
    torch.cuda.set_device(int(os.environ["RANK"]) % args.gpus_per_node)
    dist.init_process_group("nccl")
    print(torch.ones(4, device="cuda").sum())


if __name__ == "__main__":
    main()
