import torch


class Chain:
    """Applies each step in turn, like torchvision's Compose."""

    def __init__(self, steps):
        self.steps = steps

    def __call__(self, clip):
        for step in self.steps:
            clip = step(clip)
        return clip


class ToTensor:
    def __call__(self, clip):
        return torch.as_tensor(clip)


class Resample:
    def __call__(self, clip):
        return torch.nn.functional.interpolate(clip[None, None], scale_factor=0.5)[0, 0]


def default_chain():
    return Chain([ToTensor(), Resample()])
