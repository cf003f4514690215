# hazard: after the saved selection is put back, the script picks a GPU of its own through the variable, but the driver started before and keeps showing every GPU
import os

import torch

saved = os.environ.get("CUDA_VISIBLE_DEVICES", "")
print(torch.cuda.is_available())
os.environ["CUDA_VISIBLE_DEVICES"] = saved
os.environ["CUDA_VISIBLE_DEVICES"] = str(int(os.environ.get("GPU_SLOT", "1")))  # expect: GPU007
print(torch.ones(4, device="cuda").sum().item())
