# silent: device_count() counts through NVML and leaves the driver uninitialised, so the write still takes effect
import os

import torch

if torch.cuda.device_count() > 1:
    os.environ["CUDA_VISIBLE_DEVICES"] = "1"
weights = torch.randn(16, 16, device="cuda")
print(weights.sum())
