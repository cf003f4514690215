# silent: the forked child immediately replaces itself with exec, so it never runs Python code that could touch CUDA.
import os
import sys

import torch


def export_and_compress(model, path):
    torch.save(model.state_dict(), path)
    pid = os.fork()
    if pid == 0:
        os.execvp("zstd", ["zstd", "-q", "--rm", path])
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit(f"compression of {path} failed")


if __name__ == "__main__":
    net = torch.nn.Linear(1024, 1024).cuda()
    export_and_compress(net, "linear.pt")
