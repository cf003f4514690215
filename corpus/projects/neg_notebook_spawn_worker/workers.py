"""Workers the notebook hands to spawned processes: a module they can import."""
import torch


def embed_rows(rows):
    return torch.tensor(rows).mean().item()
