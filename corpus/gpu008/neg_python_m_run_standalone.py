# silent: `python -m torch.distributed.run --standalone` keeps the job on this one machine
import os
import subprocess
import sys

import torch
import torch.distributed as dist


def train():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl")
    print(torch.zeros(2).cuda().device)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "train":
        train()
    else:
        launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "4", __file__, "train"]
        subprocess.check_call(launcher)
