import ctypes, torch
lib = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(-1)
torch.cuda.device_count()
print("after torch.cuda.device_count: rc", lib.cuDeviceGetCount(ctypes.byref(n)))
torch.get_device_module("cuda").device_count()
print("after get_device_module().device_count: rc", lib.cuDeviceGetCount(ctypes.byref(n)))
import torch.accelerator as acc
acc.device_count()
print("after torch.accelerator.device_count: rc", lib.cuDeviceGetCount(ctypes.byref(n)))
