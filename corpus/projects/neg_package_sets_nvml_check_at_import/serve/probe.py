"""Whether a GPU is visible, asked once at import: with the package's NVML check, no CUDA context."""
import torch

HAS_GPU = torch.cuda.is_available()
