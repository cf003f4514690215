# hazard: os.fork() after torch.mm on host tensors; the child's own torch.mm can block forever in the inherited OpenMP state.
import os

import torch


def checksum(rows):
    return float(torch.mm(rows, rows.T).sum())


weights = torch.rand(1024, 1024)
warm = torch.mm(weights, weights)
pid = os.fork()  # expect: GPU014
if pid == 0:
    print("child", checksum(torch.rand(300, 300)))
    os._exit(0)
os.waitpid(pid, 0)
print("parent", float(warm.mean()))
