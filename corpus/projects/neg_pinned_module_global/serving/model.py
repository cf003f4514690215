import torch


def load(device):
    return torch.nn.Linear(8, 8).to(device)
