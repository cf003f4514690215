"""torchrun entry point: the helper binds the rank's device before creating the process group."""
import torch

from dist_setup import init


def main():
    init()
    return torch.nn.Linear(4, 4).cuda()


if __name__ == "__main__":
    main()
