import os, torch
torch.cuda.init()
os.environ["CUDA_VISIBLE_DEVICES"] = ""
print("CVD='' written after init: device_count", torch.cuda.device_count(), "is_available", torch.cuda.is_available())
