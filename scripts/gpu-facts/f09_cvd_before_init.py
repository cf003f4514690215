import os
import torch
os.environ["CUDA_VISIBLE_DEVICES"] = ""
print("CVD='' written before init (after import torch): device_count", torch.cuda.device_count(), "is_available", torch.cuda.is_available())
