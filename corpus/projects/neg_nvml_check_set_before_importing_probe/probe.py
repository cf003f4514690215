"""Whether a GPU is visible, asked once at import."""
import torch

HAS_GPU = torch.cuda.is_available()
