"""The pool's work, importable by the notebook."""
import torch


def score(i):
    return float(torch.ones(4, device="cuda").sum()) + i
