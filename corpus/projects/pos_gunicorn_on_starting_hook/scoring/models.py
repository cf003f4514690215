"""A model cache shared by the request handlers."""
import torch

_CACHE = {}


def warm():
    _CACHE["ranker"] = torch.nn.Linear(256, 1).to("cuda").eval()


def ranker():
    if "ranker" not in _CACHE:
        warm()
    return _CACHE["ranker"]
