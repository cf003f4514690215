# silent: subprocess.run starts a new program (fork + exec), so a parent with a CUDA context can launch GPU jobs this way.
import subprocess
import sys

import torch


def quick_sanity():
    x = torch.randn(8, 8, device="cuda")
    return bool(torch.isfinite(x @ x).all())


def launch_eval(ckpt):
    cmd = [sys.executable, "-m", "evaluate", "--checkpoint", ckpt, "--device", "cuda"]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


if __name__ == "__main__":
    assert quick_sanity()
    for ckpt in ["a.pt", "b.pt"]:
        print(launch_eval(ckpt))
