import torch

# Warming the allocator at import: every importer has an initialised CUDA context.
_scratch = torch.empty(1 << 20, device="cuda")


def encode(text):
    ids = torch.tensor([ord(c) for c in text], device="cuda")
    return ids.float().mean().item()
