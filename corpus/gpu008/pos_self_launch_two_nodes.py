# hazard: the script launches itself with torchrun on two nodes; on the second node RANK runs from 8 to 15 and names GPUs that machine lacks
import os
import subprocess
import sys

import torch


def run_rank():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)  # expect: GPU008
    torch.ones(4).cuda().sum()


if __name__ == "__main__":
    if "--as-rank" in sys.argv:
        run_rank()
    else:
        subprocess.run(
            ["torchrun", "--nnodes=2", "--nproc-per-node=8", "--rdzv-endpoint=head:29400", __file__, "--as-rank"],
            check=True,
        )
