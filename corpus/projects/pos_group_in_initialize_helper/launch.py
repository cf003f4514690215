import os

import torch

from trainkit import comm

if __name__ == "__main__":
    comm.initialize()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    torch.ones(8, device="cuda")
