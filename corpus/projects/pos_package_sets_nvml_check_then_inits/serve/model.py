"""The model is put on the GPU at import: the NVML check does not keep this from making a context."""
import torch

HEAD = torch.nn.Linear(4, 2).to("cuda")
