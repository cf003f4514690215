import torch


def load():
    return torch.nn.Linear(16, 1).cuda()


def score(rows):
    return torch.tensor(rows, device="cuda").sum().item()
