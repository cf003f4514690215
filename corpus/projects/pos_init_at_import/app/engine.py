"""The embedding model, built when the module is imported."""
import torch

encoder = torch.nn.Linear(32, 8).cuda()


def embed(batch):
    return encoder(batch.cuda()).cpu()
