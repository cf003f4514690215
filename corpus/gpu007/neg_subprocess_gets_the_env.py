# silent: the write after CUDA is in use is meant for the subprocesses launched next, which read it at start-up
import os
import subprocess
import sys

import torch

print(torch.randn(2, device="cuda"))
for gpu in ("0", "1"):
    os.environ["CUDA_VISIBLE_DEVICES"] = gpu
    subprocess.run([sys.executable, "evaluate.py", "--shard", gpu], check=True)
