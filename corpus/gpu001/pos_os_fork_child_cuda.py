# hazard: os.fork() after the parent created a CUDA tensor; the child branch allocates on the GPU and gets error 3.
import os
import sys

import torch


def serve_forever(cache):
    while True:
        req = sys.stdin.readline()
        if not req:
            break
        query = torch.tensor([float(v) for v in req.split()], device="cuda")
        print((cache @ query).argmax().item(), flush=True)


def main():
    cache = torch.randn(10_000, 4).cuda()
    print("cache ready:", cache.shape)

    pid = os.fork()  # expect: GPU001
    if pid == 0:
        serve_forever(cache)
        os._exit(0)
    else:
        _, status = os.waitpid(pid, 0)
        print("server exited with", status)


if __name__ == "__main__":
    main()
