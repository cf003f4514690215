import os
os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
import torch, common
print("is_available", torch.cuda.is_available())
print("child:", common.fork_child(lambda: torch.zeros(1, device="cuda").sum().item()))
