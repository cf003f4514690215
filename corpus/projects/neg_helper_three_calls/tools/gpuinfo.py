import torch


def gpu_count():
    # NVML-based since torch 1.13: does not initialise CUDA.
    return torch.cuda.device_count()
