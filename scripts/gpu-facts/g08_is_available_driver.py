import ctypes, torch
lib = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(-1)
print("before: rc", lib.cuDeviceGetCount(ctypes.byref(n)))
torch.cuda.is_available()
print("after is_available: rc", lib.cuDeviceGetCount(ctypes.byref(n)))
