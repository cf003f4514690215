# silent: the script starts itself with torchrun and no node count, so all its ranks share this machine and RANK equals LOCAL_RANK
import os
import subprocess
import sys

import torch


def run_rank():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)
    torch.ones(4, device=f"cuda:{rank}").sum()


if __name__ == "__main__":
    if "--as-rank" in sys.argv:
        run_rank()
    else:
        subprocess.run(["torchrun", "--nproc-per-node=2", __file__, "--as-rank"], check=True)
