# silent: the ROCm selection the job was started with is copied into the CUDA variable; it names the GPUs the runtime already uses, nothing new
import os

import torch

torch.cuda.init()

rocm_gpus = os.environ.get("HIP_VISIBLE_DEVICES") or None
if rocm_gpus is not None:
    os.environ["CUDA_VISIBLE_DEVICES"] = rocm_gpus

print(torch.ones(4, device="cuda").sum().item())
