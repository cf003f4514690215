"""torchrun entry point: the process group is created in a helper module before any device is bound."""
import os

import torch

from dist_setup import init


def main():
    init()
    model = torch.nn.Linear(4, 4).cuda()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    return model


if __name__ == "__main__":
    main()
