# hazard: a helper daemonises with os.fork after the model is on the GPU; everything after the call runs in the forked child.
import os
import sys

import torch


def detach_from_terminal():
    if os.fork() > 0:  # expect: GPU001
        sys.exit(0)
    os.setsid()


def serve_forever(model):
    while True:
        request = torch.randn(1, 32)
        print(model(request.cuda()).argmax().item())


if __name__ == "__main__":
    scorer = torch.nn.Linear(32, 10).cuda()
    detach_from_terminal()
    serve_forever(scorer)
